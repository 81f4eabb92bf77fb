import { z } from "zod";
import { ListQuery } from "@/lib/http/list-query";
import { ApproverRole } from "@/lib/policies/rules";
import { proposalStatuses } from "./state";

// Proposals' zod schemas and types: safe for the browser (no server import).

export const ProposalStatus = z.enum(proposalStatuses);

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

export const ApproveBody = z.strictObject({
  /** The hash of the canonical arguments the approver was shown. */
  arguments_sha256: z.string().regex(/^[0-9a-f]{64}$/, "must be the 64-character hex SHA-256 shown with the proposal"),
  note: z.string().trim().min(1).max(500).optional(),
});

export const RefuseBody = z.strictObject({
  reason: z.string().trim().min(1, "a refusal needs a reason the agent can re-plan with").max(500),
});

