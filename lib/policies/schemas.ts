import { z } from "zod";
import { ApproverRole, PolicyAction, PolicyDecisionKind, PolicyRules } from "./rules";

// The policy table's zod schemas and types: safe for the browser (no server import).

export const PolicyRuleObject = z.object({
  id: z.string(),
  description: z.string(),
  match: z.object({
    tools: z.array(z.string()).optional(),
    effect: z.enum(["read", "write"]).optional(),
    environments: z.array(z.string()).optional(),
    actions: z.array(PolicyAction).optional(),
    amount_at_least: z.record(z.string(), z.number().int()).optional(),
    records_at_least: z.number().int().optional(),
    irreversible: z.boolean().optional(),
    external_message: z.boolean().optional(),
  }),
  decision: PolicyDecisionKind,
  approvals_required: z.number().int(),
  approver_roles: z.array(ApproverRole),
  ttl_seconds: z.number().int(),
  requester_can_approve: z.boolean(),
  escalate_after_seconds: z.number().int().optional(),
  escalate_to_roles: z.array(ApproverRole).optional(),
});
export type PolicyRuleObject = z.infer<typeof PolicyRuleObject>;

export const PolicyTableObject = z.object({
  version: z.number().int(),
  rules: z.array(PolicyRuleObject),
  created_at: z.string(),
  created_by: z.string().nullable(),
});
export type PolicyTableObject = z.infer<typeof PolicyTableObject>;

export const PolicyPutBody = z.strictObject({
  rules: PolicyRules,
  /** The version the editor started from: publishing over a newer one is refused. */
  base_version: z.number().int().min(1).optional(),
});

export const PolicyVersionParams = z.strictObject({ version: z.coerce.number().int().min(1).max(1_000_000) });
