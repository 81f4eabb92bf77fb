import "server-only";
import { canonicalSha256 } from "@/lib/canonical";
import type { Contract } from "@/lib/contracts/types";
import { db } from "@/lib/db";
import { ToolError } from "@/lib/executors";
import { runLostItsAgent } from "@/lib/runs/service";
import { isoOffset } from "@/lib/time";
import { markExpired, proposalInclude, storedPolicy, type ProposalRow } from "./service";
import { effectiveStatus } from "./state";

// What the commit checks before anything is sent, again under the
// target's lock: the proposal is this run's and this tool's, approved, not
// expired, its approvers still have the right to approve it, its stored
// arguments still hash to what they approved — and its run still has its agent.

export async function loadProposalForCommit(
  runId: string,
  organizationId: string,
  proposalId: string,
  contract: Pick<Contract, "key" | "version">,
): Promise<ProposalRow> {
  const proposal = await db.proposal.findFirst({ where: { id: proposalId, organizationId }, include: proposalInclude });
  // Another run's proposal is not this run's to commit: it does not exist here.
  if (!proposal || proposal.runId !== runId)
    throw new ToolError("PROPOSAL_NOT_FOUND", "No proposal of this run has this id.", { field: "/proposal_id" });
  if (proposal.tool !== contract.key || proposal.toolVersion !== contract.version) {
    throw new ToolError(
      "PROPOSAL_NOT_FOUND",
      `This proposal is for ${proposal.tool}@${proposal.toolVersion}, not ${contract.key}@${contract.version}.`,
      { field: "/proposal_id" },
    );
  }
  return proposal;
}

export async function assertCommittable(proposal: ProposalRow, now = new Date()): Promise<void> {
  const proposalId = proposal.id;
  const status = effectiveStatus(proposal, now);
  if (status === "expired") {
    await markExpired(proposal.id);
    throw new ToolError(
      "PROPOSAL_EXPIRED",
      `The approval expired at ${isoOffset(proposal.expiresAt)}: preview the change again for a new approval.`,
      { proposal_id: proposalId },
    );
  }
  if (status === "consumed")
    throw new ToolError(
      "PROPOSAL_CONSUMED",
      `This proposal was already committed (operation ${proposal.operationId ?? "unknown"}).`,
      { proposal_id: proposalId },
    );
  if (status === "refused") {
    const refusal = proposal.decisions.find((d) => d.decision === "refuse");
    throw new ToolError(
      "PROPOSAL_NOT_APPROVED",
      `The proposal was refused${refusal?.reason ? `: ${refusal.reason}` : ""}. Re-plan before proposing again.`,
      { proposal_id: proposalId },
    );
  }
  if (status === "revised")
    throw new ToolError(
      "PROPOSAL_NOT_APPROVED",
      `A person revised this proposal's arguments into ${proposal.supersededBy ?? "a new proposal"}: commit that one, once approved.`,
      { proposal_id: proposalId },
    );
  if (status === "withdrawn")
    throw new ToolError(
      "PROPOSAL_NOT_APPROVED",
      "The requester withdrew this proposal before anyone decided: nothing was sent.",
      { proposal_id: proposalId },
    );
  if (status === "superseded")
    throw new ToolError(
      "PROPOSAL_NOT_APPROVED",
      `A newer proposal${proposal.supersededBy ? ` (${proposal.supersededBy})` : ""} replaced this one: commit that one, once approved.`,
      { proposal_id: proposalId },
    );
  const policy = storedPolicy(proposal);
  if (status === "pending") {
    const count = proposal.decisions.filter((d) => d.decision === "approve").length;
    throw new ToolError(
      "PROPOSAL_NOT_APPROVED",
      `The proposal waits for approval (${count} of ${policy.approvals_required}).`,
      { proposal_id: proposalId, retryable: true },
    );
  }
  await assertApproversStillEntitled(proposal);
  if (canonicalSha256(proposal.arguments) !== proposal.argumentsSha256) {
    throw new ToolError(
      "PROPOSAL_NOT_APPROVED",
      "The stored arguments no longer hash to what was approved: nothing was sent.",
      { proposal_id: proposalId },
    );
  }
}

/**
 * The dispatcher refuses every call of a run whose agent was deleted; this is
 * asked again under the lock, just before sending, for an agent deleted while
 * the commit waited its turn. Same code as the dispatcher's: a finished run.
 */
export async function assertRunKeepsItsAgent(
  proposal: Pick<ProposalRow, "id" | "organizationId" | "runId">,
): Promise<void> {
  if (await runLostItsAgent(proposal.organizationId, proposal.runId)) {
    throw new ToolError("CANCELLED", "The agent of this run was deleted: nothing was sent.", {
      proposal_id: proposal.id,
    });
  }
}

/** Rights are checked at approval and again now: a member who left, was deactivated or lost the role no longer counts. */
async function assertApproversStillEntitled(proposal: ProposalRow): Promise<void> {
  const policy = storedPolicy(proposal);
  if (policy.approvals_required === 0) return;
  const approvals = proposal.decisions.filter(
    (d) => d.decision === "approve" && d.argumentsSha256 === proposal.argumentsSha256,
  );
  const members = await db.member.findMany({
    where: {
      organizationId: proposal.organizationId,
      id: { in: approvals.map((a) => a.memberId) },
      deactivatedAt: null,
    },
    select: { id: true, role: true },
  });
  const roles = new Map(members.map((m) => [m.id, m.role]));
  const valid = new Set(
    approvals
      .filter((a) => (policy.approver_roles as readonly string[]).includes(roles.get(a.memberId) ?? ""))
      .filter((a) => policy.requester_can_approve || a.memberId !== proposal.requestedBy)
      .map((a) => a.memberId),
  );
  if (valid.size < policy.approvals_required) {
    throw new ToolError(
      "APPROVER_NOT_AUTHORIZED",
      `Only ${valid.size} of the ${policy.approvals_required} approvals still come from people the rule "${policy.rule}" entitles (${policy.approver_roles.join(", ")}): nothing was sent.`,
      { proposal_id: proposal.id },
    );
  }
}
