import { z } from "zod";
import { defineEndpoint } from "@/lib/http/endpoint";
import { ListQuery } from "@/lib/http/validation";
import { ApproverRole } from "@/lib/policies/rules";
import { isoOffset, isoOffsetOrNull } from "@/lib/time";
import type { ProposalRow } from "./service";
import { storedPolicy } from "./service";
import { effectiveStatus, proposalStatuses } from "./state";

// /v1/proposals: reading is for anyone who may read runs (an agent runtime
// waits on its proposals); deciding is for signed-in people only — an API key
// gets 403, whatever its scopes, so no agent approves its own write.

const ProposalStatus = z.enum(proposalStatuses);

export const ProposalParams = z.strictObject({ proposal: z.string().regex(/^prop_[0-9a-z]{26}$/, "must be a proposal id (prop_…)") });

export const ProposalListQuery = ListQuery.extend({
  status: z
    .string()
    .transform((value) => value.split(",").map((s) => s.trim()).filter(Boolean))
    .pipe(z.array(ProposalStatus).min(1).max(proposalStatuses.length))
    .optional(),
  run: z.string().min(1).max(64).optional(),
  /** `expires_at`: soonest expiry first (the inbox); default newest first. */
  order: z.enum(["created_at", "expires_at"]).default("created_at"),
});

const MemberRef = z.object({ id: z.string(), name: z.string().nullable() });

export const DecisionObject = z.object({
  member: MemberRef,
  decision: z.enum(["approve", "refuse"]),
  arguments_sha256: z.string(),
  target_version: z.number().int().nullable(),
  reason: z.string().nullable(),
  created_at: z.string(),
});

export const ProposalObject = z.object({
  id: z.string(),
  run: z.string(),
  tool: z.string(),
  arguments: z.record(z.string(), z.unknown()),
  arguments_sha256: z.string(),
  target: z.object({ type: z.string(), id: z.string(), version: z.number().int().nullable() }).nullable(),
  effect: z.string(),
  changes: z.array(z.object({ field: z.string(), before: z.unknown(), after: z.unknown() })),
  recipients: z.array(z.string()).nullable(),
  amount: z.object({ value_minor: z.number().int(), currency: z.string() }).nullable(),
  environment: z.string(),
  records_affected: z.number().int(),
  irreversible: z.boolean(),
  action: z.string().nullable(),
  policy: z.object({
    rule: z.string(),
    description: z.string(),
    policy_version: z.number().int(),
    decision: z.enum(["allow", "require_approval", "deny"]),
    approvals_required: z.number().int(),
    approver_roles: z.array(ApproverRole),
    requester_can_approve: z.boolean(),
  }),
  approvals: z.object({ count: z.number().int(), required: z.number().int() }),
  status: ProposalStatus,
  expires_at: z.string(),
  requested_by: MemberRef.nullable(),
  decisions: z.array(DecisionObject),
  operation: z.string().nullable(),
  consumed_at: z.string().nullable(),
  created_at: z.string(),
});
export type ProposalObject = z.infer<typeof ProposalObject>;

export type MemberNames = Map<string, string>;

const ref = (id: string, names: MemberNames) => ({ id, name: names.get(id) ?? null });

export function serializeProposal(row: ProposalRow, names: MemberNames, now = new Date()): ProposalObject {
  const policy = storedPolicy(row);
  return {
    id: row.id,
    run: row.runId,
    tool: `${row.tool}@${row.toolVersion}`,
    arguments: row.arguments as Record<string, unknown>,
    arguments_sha256: row.argumentsSha256,
    target: row.targetType && row.targetId ? { type: row.targetType, id: row.targetId, version: row.targetVersion } : null,
    effect: row.effect,
    changes: row.changes as ProposalObject["changes"],
    recipients: (row.recipients as string[] | null) ?? null,
    amount: row.amountValueMinor !== null && row.amountCurrency ? { value_minor: row.amountValueMinor, currency: row.amountCurrency } : null,
    environment: row.environment,
    records_affected: row.recordsAffected,
    irreversible: row.irreversible,
    action: policy.action ?? null,
    policy: {
      rule: policy.rule, description: policy.description, policy_version: policy.policy_version, decision: policy.decision,
      approvals_required: policy.approvals_required, approver_roles: policy.approver_roles, requester_can_approve: policy.requester_can_approve,
    },
    approvals: { count: row.decisions.filter((d) => d.decision === "approve").length, required: policy.approvals_required },
    status: effectiveStatus(row, now),
    expires_at: isoOffset(row.expiresAt),
    requested_by: row.requestedBy ? ref(row.requestedBy, names) : null,
    decisions: row.decisions.map((d) => ({
      member: ref(d.memberId, names),
      decision: d.decision === "refuse" ? "refuse" : "approve",
      arguments_sha256: d.argumentsSha256,
      target_version: d.targetVersion,
      reason: d.reason,
      created_at: isoOffset(d.createdAt),
    })),
    operation: row.operationId,
    consumed_at: isoOffsetOrNull(row.consumedAt),
    created_at: isoOffset(row.createdAt),
  };
}

/** The member ids a set of proposals mentions, to fetch their names once. */
export function mentionedMembers(rows: ProposalRow[]): string[] {
  return [...new Set(rows.flatMap((row) => [...(row.requestedBy ? [row.requestedBy] : []), ...row.decisions.map((d) => d.memberId)]))];
}

const readScopes = ["runs:read"] as const;
const decisionErrors = ["not_found", "proposal_expired", "proposal_not_pending", "approver_not_authorized", "already_decided"] as const;

export const listProposalsEndpoint = defineEndpoint({
  method: "GET", path: "/v1/proposals", tag: "Proposals", summary: "Proposals of the organization, filtered by status and run",
  auth: "both", scopes: [...readScopes], query: ProposalListQuery,
  response: z.object({ data: z.array(ProposalObject), next_cursor: z.string().nullable() }),
});

export const countProposalsEndpoint = defineEndpoint({
  method: "GET", path: "/v1/proposals/counts", tag: "Proposals", summary: "How many proposals wait for a decision",
  auth: "both", scopes: [...readScopes],
  response: z.object({ data: z.object({ pending: z.number().int() }) }),
});

export const getProposalEndpoint = defineEndpoint({
  method: "GET", path: "/v1/proposals/{proposal}", tag: "Proposals", summary: "One proposal: the canonical change, its rule and its decisions",
  auth: "both", scopes: [...readScopes], params: ProposalParams,
  response: z.object({ data: ProposalObject }), errors: ["not_found"],
});

export const ApproveBody = z.strictObject({
  /** The hash of the canonical arguments the approver was shown. */
  arguments_sha256: z.string().regex(/^[0-9a-f]{64}$/, "must be the 64-character hex SHA-256 shown with the proposal"),
  note: z.string().trim().min(1).max(500).optional(),
});

export const RefuseBody = z.strictObject({
  reason: z.string().trim().min(1, "a refusal needs a reason the agent can re-plan with").max(500),
});

export const approveProposalEndpoint = defineEndpoint({
  method: "POST", path: "/v1/proposals/{proposal}/approve", tag: "Proposals", summary: "Approve the exact change shown (signed-in people only)",
  auth: "session", params: ProposalParams, body: ApproveBody,
  response: z.object({ data: ProposalObject }), errors: [...decisionErrors, "self_approval_forbidden", "arguments_hash_mismatch", "agent_deleted"],
});

export const refuseProposalEndpoint = defineEndpoint({
  method: "POST", path: "/v1/proposals/{proposal}/refuse", tag: "Proposals", summary: "Refuse a proposal with a reason (signed-in people only)",
  auth: "session", params: ProposalParams, body: RefuseBody,
  response: z.object({ data: ProposalObject }), errors: [...decisionErrors],
});
