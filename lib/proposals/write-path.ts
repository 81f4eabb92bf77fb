import "server-only";
import { findContract } from "@/lib/contracts/registry";
import { checkAgainst } from "@/lib/contracts/schema";
import type { Contract } from "@/lib/contracts/types";
import { db } from "@/lib/db";
import type { WriteCall, WriteOutcome, WritePath } from "@/lib/dispatch/write-path";
import { ToolError } from "@/lib/executors";
import { followRunOperation } from "@/lib/operations/long";
import { judge, recordJudgement } from "@/lib/policies/judge";
import type { PolicyOutcome } from "@/lib/policies/rules";
import type { RunDriver } from "@/lib/runs/driver";
import { capabilitySetOf, type RunRow } from "@/lib/runs/model";
import { isoOffset } from "@/lib/time";
import { commitProposal } from "./commit";
import {
  changesNothing,
  draftFromArguments,
  draftFromPreview,
  DraftError,
  policyFacts,
  type ProposalDraft,
} from "./draft";
import { createProposal, storedPolicy, type ProposalRow } from "./service";
import { effectiveStatus } from "./state";
import { isProposalRef, writeCallSchema } from "./write-schema";

// Where the dispatcher hands over writes and previews (its write seam):
// a preview's result or a write's candidate arguments become a canonical
// proposal decided by the policy table; `{proposal_id}` commits one.

/**
 * Who asks for a write: the member who made the call, or the person who created
 * the API key that made it. The dispatcher already refused anyone but the run's
 * opener, so this is also who opened the run.
 */
async function requesterOf(organizationId: string, driver: RunDriver): Promise<string | null> {
  if (driver.memberId) return driver.memberId;
  if (!driver.apiKeyId) return null;
  const key = await db.apiKey.findFirst({
    where: { id: driver.apiKeyId, organizationId },
    select: { createdById: true },
  });
  return key?.createdById ?? null;
}

function denied(policy: PolicyOutcome): ToolError {
  return new ToolError(
    "POLICY_DENIED",
    `The policy rule "${policy.rule}" (version ${policy.policy_version}) forbids this write${policy.description ? `: ${policy.description}` : "."}`,
  );
}

async function propose(
  run: { id: string; organizationId: string },
  driver: RunDriver,
  contract: Contract,
  draft: ProposalDraft,
  stepId: string,
) {
  const judgement = await judge(run.organizationId, policyFacts(contract, draft));
  const policy = judgement.live;
  const judged = { organizationId: run.organizationId, tool: contract, runId: run.id, stepId };
  if (policy.decision === "deny") {
    await recordJudgement(judgement, { ...judged, proposalId: null });
    return { policy, proposal: null, created: false };
  }
  const { proposal, created } = await createProposal({
    organizationId: run.organizationId,
    runId: run.id,
    tool: { key: contract.key, version: contract.version },
    draft,
    policy,
    requestedBy: await requesterOf(run.organizationId, driver),
    requestedByApiKeyId: driver.apiKeyId,
  });
  await recordJudgement(judgement, { ...judged, proposalId: proposal.id });
  return { policy, proposal, created };
}

/** What the agent learns about its proposal: enough to wait for it and commit it, nothing to approve it with. */
export function proposalEvidence(proposal: ProposalRow, created: boolean) {
  const policy = storedPolicy(proposal);
  return {
    id: proposal.id,
    status: effectiveStatus(proposal),
    created,
    expires_at: isoOffset(proposal.expiresAt),
    rule: policy.rule,
    approvals_required: policy.approvals_required,
    arguments_sha256: proposal.argumentsSha256,
  };
}

/** The dispatcher's write path: commit a proposal, or turn candidate arguments into one. */
export async function proposalWritePath(call: WriteCall): Promise<WriteOutcome> {
  if (isProposalRef(call.arguments)) return commitProposal(call, call.arguments.proposal_id);
  if (call.contract.preview) {
    throw new ToolError(
      "INVALID_ARGUMENTS",
      `This tool commits an approved proposal: call ${call.contract.preview} first, then send {proposal_id}.`,
      { field: "/proposal_id" },
    );
  }
  const draft = draftFromArguments(call.contract, call.arguments as Record<string, unknown>);
  const { policy, proposal, created } = await propose(call.run, call.driver, call.contract, draft, call.stepId);
  if (!proposal) throw denied(policy);
  const status = effectiveStatus(proposal);
  // An explicit `allow` row: the proposal is approved by the table itself and committed now.
  if (policy.decision === "allow" && status === "approved" && created) return commitProposal(call, proposal.id);
  if (status === "refused")
    throw new ToolError("PROPOSAL_NOT_APPROVED", `This exact change was refused (proposal ${proposal.id}): re-plan.`, {
      proposal_id: proposal.id,
    });
  if (status === "consumed")
    throw new ToolError(
      "PROPOSAL_CONSUMED",
      `This exact change was already committed in this run (proposal ${proposal.id}).`,
      { proposal_id: proposal.id },
    );
  const next =
    status === "approved"
      ? `approved: commit it with {"proposal_id": "${proposal.id}"}`
      : `waits for ${policy.approvals_required} approval(s) under rule "${policy.rule}" until ${isoOffset(proposal.expiresAt)}; then commit it with {"proposal_id": "${proposal.id}"}`;
  throw new ToolError("APPROVAL_REQUIRED", `Nothing was executed. Proposal ${proposal.id} ${next}.`, {
    proposal_id: proposal.id,
    retryable: true,
  });
}

/** The write tools of the run whose preview this tool is. */
async function commitsPreviewedBy(run: RunRow, preview: Contract): Promise<Contract[]> {
  const writes = capabilitySetOf(run).filter((entry) => entry.effect === "write");
  const contracts = await Promise.all(
    writes.map((entry) => findContract(run.organizationId, entry.key, entry.version)),
  );
  return contracts.flatMap((found) =>
    found && !found.retired && found.contract.preview === preview.key ? [found.contract] : [],
  );
}

/**
 * After a preview read succeeded (its output already validated): the canonical
 * proposal for each write of the run it previews, or why there is none. A read
 * run gets no proposal — it could never commit one.
 */
export async function proposalFromPreview(
  run: RunRow,
  preview: Contract,
  result: unknown,
  driver: RunDriver,
  stepId: string,
): Promise<Record<string, unknown> | undefined> {
  if (preview.effect !== "read") return undefined;
  const commits = await commitsPreviewedBy(run, preview);
  const commit = commits[0];
  if (!commit) return undefined;
  let draft: ProposalDraft;
  try {
    draft = draftFromPreview(commit, result);
    const sent = {
      ...draft.arguments,
      ...(commit.idempotency ? { [commit.idempotency.key_field]: "guichet-placeholder-key" } : {}),
    };
    const broken = checkAgainst(commit.input_schema, sent, commit.kind === "mcp" ? "lenient" : "strict");
    if (broken)
      throw new DraftError(
        `the previewed arguments would not pass ${commit.key}'s input schema (rule ${broken.schemaPath})`,
      );
  } catch (error) {
    if (!(error instanceof DraftError)) throw error;
    return { proposal: null, proposal_error: error.message };
  }
  // Previewing what is already on file: no proposal, so nobody is asked to approve a write that does nothing.
  if (changesNothing(draft)) {
    const fields = draft.changes.map((change) => change.field).join(", ");
    const target = draft.target ? `${draft.target.type} ${draft.target.id}` : "the target";
    throw new ToolError(
      "NO_CHANGE",
      `Nothing to change: ${target} already holds these values (${fields}). No proposal was made; there is nothing to approve or commit.`,
      { retryable: false },
    );
  }
  const { policy, proposal, created } = await propose(run, driver, commit, draft, stepId);
  if (!proposal) return { proposal: null, policy: { decision: "deny", rule: policy.rule } };
  return { proposal: proposalEvidence(proposal, created) };
}

/** The proposals engine as the dispatcher's write path. */
export const proposalsWritePath: WritePath = {
  handleWriteCall: proposalWritePath,
  afterRead: proposalFromPreview,
  writeArgumentsSchema: writeCallSchema,
  followOperation: followRunOperation,
};
