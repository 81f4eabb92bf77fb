import { isoOffset, isoOffsetOrNull } from "@/lib/time";
import type { ProposalContext } from "./context";
import { ArgumentChanges } from "./revision-diff";
import { StoredChanges, type ProposalObject, type RequesterObject } from "./schemas";
import { storedPolicy, type ProposalRow } from "./service";
import { effectiveStatus } from "./state";

// A stored proposal as the API shows it (server side: reads the stored policy
// outcome), with what `proposalContext` read for its page.

const ref = (id: string, names: Map<string, string>) => ({ id, name: names.get(id) ?? null });

function requesterOf(row: ProposalRow, context: ProposalContext): RequesterObject {
  return (
    context.requesters.get(row.runId) ?? {
      agent: null,
      run: row.runId,
      source: row.requestedBy ? "console" : "api_key",
      api_key: null,
      member: row.requestedBy ? ref(row.requestedBy, context.names) : null,
      mcp_client: null,
      widget: null,
    }
  );
}

export function serializeProposal(row: ProposalRow, context: ProposalContext, now = new Date()): ProposalObject {
  const policy = storedPolicy(row);
  const { names } = context;
  return {
    id: row.id,
    run: row.runId,
    tool: `${row.tool}@${row.toolVersion}`,
    arguments: row.arguments as Record<string, unknown>,
    arguments_sha256: row.argumentsSha256,
    target:
      row.targetType && row.targetId ? { type: row.targetType, id: row.targetId, version: row.targetVersion } : null,
    effect: row.effect,
    changes: StoredChanges.parse(row.changes).map((change) => ({ ...change, label: change.label ?? null })),
    recipients: (row.recipients as string[] | null) ?? null,
    amount:
      row.amountValueMinor !== null && row.amountCurrency
        ? { value_minor: Number(row.amountValueMinor), currency: row.amountCurrency }
        : null,
    environment: row.environment,
    records_affected: row.recordsAffected,
    irreversible: row.irreversible,
    action: policy.action ?? null,
    policy: {
      rule: policy.rule,
      description: policy.description,
      policy_version: policy.policy_version,
      decision: policy.decision,
      approvals_required: policy.approvals_required,
      approver_roles: policy.approver_roles,
      requester_can_approve: policy.requester_can_approve,
      ...(policy.escalate_after_seconds !== undefined && {
        escalate_after_seconds: policy.escalate_after_seconds,
        escalate_to_roles: policy.escalate_to_roles ?? [],
      }),
    },
    approvals: {
      count: row.decisions.filter((d) => d.decision === "approve").length,
      required: policy.approvals_required,
    },
    status: effectiveStatus(row, now),
    superseded_by: row.supersededBy,
    supersedes: row.supersedes,
    revision: row.revisedBy
      ? { revised_by: ref(row.revisedBy, names), changes: ArgumentChanges.parse(row.revisionChanges ?? []) }
      : null,
    expires_at: isoOffset(row.expiresAt),
    escalated_at: isoOffsetOrNull(row.escalatedAt),
    requested_by: row.requestedBy ? ref(row.requestedBy, names) : null,
    requester: requesterOf(row, context),
    acts_as: context.actsAs.get(row.id) ?? null,
    stale: context.stale.has(row.id),
    decisions: row.decisions.map((d) => ({
      member: ref(d.memberId, names),
      decision: d.decision === "refuse" ? "refuse" : "approve",
      arguments_sha256: d.argumentsSha256,
      target_version: d.targetVersion,
      reason: d.reason,
      share_reason_with_requester: d.shareReason,
      created_at: isoOffset(d.createdAt),
    })),
    operation: row.operationId,
    consumed_at: isoOffsetOrNull(row.consumedAt),
    created_at: isoOffset(row.createdAt),
  };
}
