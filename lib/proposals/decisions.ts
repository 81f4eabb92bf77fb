import "server-only";
import { roleBar, selfApprovalBar } from "./decider";
import { recordAudit } from "@/lib/audit/record";
import { db, isUniqueViolation } from "@/lib/db";
import { ApiError } from "@/lib/http/errors";
import { log } from "@/lib/log";
import type { Role } from "@/lib/auth/scopes";
import { runLostItsAgent } from "@/lib/runs/service";
import { resumeRunAfterDecision } from "@/lib/runs/waiting";
import { countTelemetry } from "@/lib/telemetry/service";
import { traceApproval } from "@/lib/traces/record";
import { isoOffset } from "@/lib/time";
import { getProposal, markExpired, storedPolicy, type ProposalRow } from "./service";
import { effectiveStatus } from "./state";
import { recordProposalMoved } from "@/lib/webhooks/events";
import { noteDecision } from "@/lib/observability/metrics";
import { inDecisionSpan } from "@/lib/observability/spans";

// Approvals by people: a signed-in member whose role the rule names,
// who is not the one who asked, approving the exact hash they were shown,
// while the proposal is still pending. Each decision is kept — who, which
// hash, which target version, when, why — and the quorum counts distinct people.

export interface Approver {
  organizationId: string;
  memberId: string;
  role: Role;
  /** For the audit trail: who it was, still readable once they are gone. */
  email?: string;
}

type Decision =
  | { kind: "approve"; argumentsSha256: string; note?: string }
  | { kind: "refuse"; reason: string; shareReason?: boolean };

/** The refusals shared by approve and refuse, in the order a person would want to hear them. */
export function assertDecidable(proposal: ProposalRow, approver: Approver, now: Date): void {
  const status = effectiveStatus(proposal, now);
  if (status === "expired") {
    throw new ApiError(
      "proposal_expired",
      `This proposal expired at ${isoOffset(proposal.expiresAt)}: it can no longer be decided. The agent must propose again.`,
      {
        reason: { status, expires_at: isoOffset(proposal.expiresAt) },
      },
    );
  }
  if (status === "superseded") {
    const newer = proposal.supersededBy;
    throw new ApiError(
      "proposal_superseded",
      `This proposal was superseded${newer ? ` by ${newer}` : ""}: a newer preview of the same change replaced it. Decide on ${newer ? "that one" : "the newer proposal"} instead.`,
      { reason: { status, superseded_by: newer } },
    );
  }
  if (status === "revised") {
    throw new ApiError(
      "proposal_revised",
      `A person revised this proposal's arguments into ${proposal.supersededBy}: decide on that one instead.`,
      { reason: { status, superseded_by: proposal.supersededBy } },
    );
  }
  if (status === "withdrawn") {
    throw new ApiError(
      "proposal_not_pending",
      "The requester withdrew this proposal: there is nothing left to decide.",
      {
        reason: { status },
      },
    );
  }
  if (status !== "pending") {
    throw new ApiError("proposal_not_pending", `This proposal is ${status}: it was already decided.`, {
      reason: { status },
    });
  }
  const policy = storedPolicy(proposal);
  if (roleBar(policy, approver.role)) {
    throw new ApiError(
      "approver_not_authorized",
      `The rule "${policy.rule}" lets ${policy.approver_roles.join(", ")} decide; your role (${approver.role}) cannot.`,
      {
        reason: { rule: policy.rule, approver_roles: policy.approver_roles, role: approver.role },
      },
    );
  }
}

async function decide(approver: Approver, proposalId: string, decision: Decision): Promise<ProposalRow> {
  const now = new Date();
  const proposal = await getProposal(approver.organizationId, proposalId);
  if (effectiveStatus(proposal, now) === "expired") await markExpired(proposal.id);
  assertDecidable(proposal, approver, now);
  const policy = storedPolicy(proposal);
  if (decision.kind === "approve") {
    // An approval of a write that can never be committed would only mislead; refusing it still closes the card.
    if (await runLostItsAgent(proposal.organizationId, proposal.runId)) {
      throw new ApiError(
        "agent_deleted",
        "The agent that proposed this write was deleted: its run commits nothing more, so this proposal cannot be approved. Refuse it to close it.",
        {
          reason: { run: proposal.runId },
        },
      );
    }
    // Four eyes: whoever revised the arguments counts as asking for the write they wrote.
    const self = selfApprovalBar(policy, proposal, approver.memberId);
    if (self)
      throw new ApiError(
        "self_approval_forbidden",
        self.code === "revised_by_you"
          ? "You revised this write's arguments: someone else must approve it."
          : "You asked for this write: someone else must approve it.",
      );
    if (decision.argumentsSha256 !== proposal.argumentsSha256) {
      throw new ApiError(
        "arguments_hash_mismatch",
        "The arguments you were shown are not the ones this proposal holds: reload it before deciding.",
        {
          reason: { arguments_sha256: proposal.argumentsSha256 },
        },
      );
    }
  }
  try {
    await db.$transaction(async (tx) => {
      // Taking the row first serializes concurrent deciders, so the quorum is counted on committed decisions.
      const held = await tx.proposal.updateMany({
        where: { id: proposal.id, status: "pending", expiresAt: { gt: now } },
        data: { updatedAt: now },
      });
      if (held.count === 0) {
        const current = await tx.proposal.findUniqueOrThrow({
          where: { id: proposal.id },
          include: { decisions: true },
        });
        assertDecidable(current, approver, new Date());
        throw new ApiError("proposal_not_pending", "This proposal was decided meanwhile.", {
          reason: { status: current.status },
        });
      }
      await tx.decision.create({
        data: {
          proposalId: proposal.id,
          organizationId: approver.organizationId,
          memberId: approver.memberId,
          decision: decision.kind,
          argumentsSha256: proposal.argumentsSha256,
          targetVersion: proposal.targetVersion,
          reason: decision.kind === "refuse" ? decision.reason : (decision.note ?? null),
          shareReason: decision.kind === "refuse" && decision.shareReason === true,
        },
      });
      let quorum = false;
      if (decision.kind === "refuse") {
        await tx.proposal.updateMany({ where: { id: proposal.id, status: "pending" }, data: { status: "refused" } });
        await recordProposalMoved(tx, proposal, "proposal.refused");
      } else {
        const approvals = await tx.decision.count({ where: { proposalId: proposal.id, decision: "approve" } });
        quorum = approvals >= policy.approvals_required;
        if (quorum) {
          await tx.proposal.updateMany({ where: { id: proposal.id, status: "pending" }, data: { status: "approved" } });
          await recordProposalMoved(tx, proposal, "proposal.approved");
        }
      }
      // The tool and the rule, never the arguments nor the refusal's text.
      await recordAudit(
        {
          organizationId: approver.organizationId,
          actor: { type: "member", id: approver.memberId, label: approver.email ?? null },
          action: decision.kind === "refuse" ? "proposal.refused" : "proposal.approved",
          target: { type: "proposal", id: proposal.id },
          details: {
            tool: proposal.tool,
            rule: policy.rule,
            arguments_sha256: proposal.argumentsSha256,
            ...(decision.kind === "approve" ? { quorum_reached: quorum } : {}),
          },
        },
        tx,
      );
    });
  } catch (error) {
    if (isUniqueViolation(error))
      throw new ApiError("already_decided", "You already decided on this proposal; the quorum needs distinct people.");
    throw error;
  }
  await countTelemetry(approver.organizationId, [
    { metric: "approval_decision", tool: proposal.tool, version: proposal.toolVersion, code: decision.kind },
  ]);
  noteDecision(decision.kind, proposal.createdAt);
  await traceDecision(proposal, approver, decision);
  const decided = await getProposal(approver.organizationId, proposal.id);
  if (decided.status !== "pending") {
    // The decision stands even if its run's resume cannot be enqueued now: the approval sweep resumes it.
    await resumeRunAfterDecision(decided.organizationId, decided.runId).catch((error: unknown) =>
      log("error", "run.resume_enqueue_failed", {
        run: decided.runId,
        error: error instanceof Error ? error.name : "unknown",
      }),
    );
  }
  return decided;
}

async function traceDecision(proposal: ProposalRow, approver: Approver, decision: Decision): Promise<void> {
  const run = await db.run.findFirst({
    where: { id: proposal.runId, organizationId: proposal.organizationId },
    select: { id: true, organizationId: true, trace: true },
  });
  if (!run) return;
  await traceApproval(run, {
    proposal: proposal.id,
    tool: proposal.tool,
    version: proposal.toolVersion,
    kind: decision.kind,
    role: approver.role,
    text: decision.kind === "refuse" ? decision.reason : (decision.note ?? null),
  });
}

/** POST /v1/proposals/{id}/approve — one approval of the exact hash shown. */
export function approveProposal(
  approver: Approver,
  proposalId: string,
  argumentsSha256: string,
  note?: string,
): Promise<ProposalRow> {
  return inDecisionSpan(proposalId, "approve", () =>
    decide(approver, proposalId, { kind: "approve", argumentsSha256, note }),
  );
}

/**
 * POST /v1/proposals/{id}/refuse — one refusal ends the proposal; its reason goes back to the agent, and to a
 * widget visitor only when `shareReason` says so.
 */
export function refuseProposal(
  approver: Approver,
  proposalId: string,
  reason: string,
  shareReason = false,
): Promise<ProposalRow> {
  return inDecisionSpan(proposalId, "refuse", () =>
    decide(approver, proposalId, { kind: "refuse", reason, shareReason }),
  );
}

/** One line of a batch: the proposal as decided, or why this one was not. */
export type BatchOutcome =
  { proposal: string; ok: true; row: ProposalRow } | { proposal: string; ok: false; error: ApiError };

/**
 * POST /v1/proposals/decisions — each decision goes through the same checks as
 * one made alone (its own hash, rule, expiry, rights), one after the other; a
 * refusal of one is that line's answer and the others go on.
 */
export async function decideProposals(
  approver: Approver,
  items: (
    { proposal: string; decision: "approve"; arguments_sha256: string } | { proposal: string; decision: "refuse" }
  )[],
  reason: string | undefined,
): Promise<BatchOutcome[]> {
  const outcomes: BatchOutcome[] = [];
  for (const item of items) {
    try {
      const row =
        item.decision === "approve"
          ? await approveProposal(approver, item.proposal, item.arguments_sha256)
          : await refuseProposal(approver, item.proposal, reason ?? "");
      outcomes.push({ proposal: item.proposal, ok: true, row });
    } catch (error) {
      if (!(error instanceof ApiError)) throw error;
      outcomes.push({ proposal: item.proposal, ok: false, error });
    }
  }
  return outcomes;
}
