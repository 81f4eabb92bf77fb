import "server-only";
import type { DbOrTx, Prisma } from "@/lib/db";
import { consoleUrl, recordEvent, type EventData } from "./outbox";

// The events each domain records, built from its rows: what happened and where
// to look, never what was sent or answered (arguments, results, transcripts).

type ProposalFields = Pick<
  Prisma.ProposalGetPayload<object>,
  | "id"
  | "organizationId"
  | "runId"
  | "tool"
  | "toolVersion"
  | "effect"
  | "amountValueMinor"
  | "amountCurrency"
  | "recipients"
  | "recordsAffected"
  | "irreversible"
  | "expiresAt"
  | "policy"
  | "requestedBy"
>;

interface StoredRule {
  rule?: string;
  decision?: string;
  approver_roles?: string[];
  approvals_required?: number;
  requester_can_approve?: boolean;
}

export function proposalData(proposal: ProposalFields, status: string): EventData {
  const policy = (proposal.policy ?? {}) as StoredRule;
  return {
    proposal: proposal.id,
    run: proposal.runId,
    tool: `${proposal.tool}@${proposal.toolVersion}`,
    status,
    effect: proposal.effect,
    amount:
      proposal.amountValueMinor !== null && proposal.amountCurrency
        ? { value_minor: Number(proposal.amountValueMinor), currency: proposal.amountCurrency }
        : null,
    recipients_count: Array.isArray(proposal.recipients) ? proposal.recipients.length : null,
    records_affected: proposal.recordsAffected,
    irreversible: proposal.irreversible,
    rule: policy.rule ?? null,
    approver_roles: policy.approver_roles ?? [],
    approvals_required: policy.approvals_required ?? 0,
    expires_at: proposal.expiresAt.toISOString(),
    console_url: consoleUrl(`/approbations/${proposal.id}`),
  };
}

/**
 * proposal.created; approvers are e-mailed when it waits for people. A managed run that then waits
 * says so itself (run.requires_approval, from its status change): one event per pause, however many
 * proposals it holds, and none for a client-driven run, whose status does not change.
 */
export async function recordProposalCreated(tx: DbOrTx, proposal: ProposalFields, status: string): Promise<void> {
  const policy = (proposal.policy ?? {}) as StoredRule;
  const waits = status === "pending";
  await recordEvent(
    tx,
    proposal.organizationId,
    "proposal.created",
    proposalData(proposal, status),
    waits
      ? {
          roles: policy.approver_roles ?? [],
          exclude: policy.requester_can_approve ? null : proposal.requestedBy,
        }
      : null,
  );
}

/**
 * proposal.escalated: still undecided when its rule's escalation came due. The rule's second group
 * (escalate_to_roles, roles that may already decide) is e-mailed; the expiry does not move.
 */
export function recordProposalEscalated(
  tx: DbOrTx,
  proposal: ProposalFields & { escalatedAt: Date | null },
  roles: readonly string[],
): Promise<void> {
  const policy = (proposal.policy ?? {}) as StoredRule;
  return recordEvent(
    tx,
    proposal.organizationId,
    "proposal.escalated",
    {
      ...proposalData(proposal, "pending"),
      escalated_at: proposal.escalatedAt?.toISOString() ?? null,
      escalate_to_roles: [...roles],
    },
    { roles, exclude: policy.requester_can_approve ? null : proposal.requestedBy, fromPoll: true },
  );
}

export function recordProposalMoved(
  tx: DbOrTx,
  proposal: ProposalFields,
  type: "proposal.approved" | "proposal.refused" | "proposal.expired",
): Promise<void> {
  const status = type.slice("proposal.".length);
  return recordEvent(tx, proposal.organizationId, type, proposalData(proposal, status));
}

export function recordOperationUnknown(
  tx: DbOrTx,
  operation: { id: string; organizationId: string; runId: string; proposalId: string | null; tool: string },
): Promise<void> {
  return recordEvent(tx, operation.organizationId, "operation.unknown", {
    operation: operation.id,
    run: operation.runId,
    proposal: operation.proposalId,
    tool: operation.tool,
    console_url: consoleUrl("/operations"),
  });
}

/** A managed run's status change; `proposals` for run.requires_approval (the pending ones it waits for). */
export function recordRunStatus(
  tx: DbOrTx,
  run: { id: string; organizationId: string; agentId: string | null },
  type: "run.requires_action" | "run.requires_approval" | "run.completed" | "run.failed",
  details: { failureCode?: string | null; proposals?: string[] } = {},
): Promise<void> {
  return recordEvent(tx, run.organizationId, type, {
    run: run.id,
    agent: run.agentId,
    status: type.slice("run.".length),
    ...(type === "run.failed" && { failure_code: details.failureCode ?? null }),
    ...(type === "run.requires_approval" && { proposals: details.proposals ?? [] }),
    console_url: consoleUrl(type === "run.requires_approval" ? "/approbations" : "/journal"),
  });
}
