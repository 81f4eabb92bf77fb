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

// ---------------------------------------------------------------- simulation and shadow mode

const DecisionBrief = z.object({
  rule: z.string(),
  decision: PolicyDecisionKind,
  approvals_required: z.number().int(),
});

export const PolicySimulateBody = z.strictObject({
  /** The draft table, validated exactly as PUT /v1/policies validates it. */
  rules: PolicyRules,
  /** The start of the window of recorded decisions to evaluate the draft against. */
  since: z.iso
    .datetime({ offset: true })
    .transform((value) => new Date(value))
    .refine((date) => date.getTime() <= Date.now(), "must not be in the future"),
});

export const PolicySimulationObject = z.object({
  since: z.string(),
  until: z.string(),
  /** The live version the draft is compared with, on the same recorded facts. */
  live_version: z.number().int(),
  evaluated: z.number().int(),
  changed: z.number().int(),
  /** True when the window held more decisions than a simulation reads (the newest are read). */
  truncated: z.boolean(),
  tools: z.array(
    z.object({
      tool: z.string(),
      evaluated: z.number().int(),
      changed: z.number().int(),
      changes: z.array(
        z.object({
          /** `allow -> require_approval`, `quorum 1 -> 2`, `require_approval -> deny`, `approver_roles`… */
          kind: z.string(),
          count: z.number().int(),
          examples: z.array(
            z.object({
              step: z.string().nullable(),
              run: z.string().nullable(),
              proposal: z.string().nullable(),
              tool_version: z.number().int(),
              decided_at: z.string(),
              before: DecisionBrief,
              after: DecisionBrief,
            }),
          ),
        }),
      ),
    }),
  ),
});
export type PolicySimulationObject = z.infer<typeof PolicySimulationObject>;

export const ShadowPolicyBody = z.strictObject({ rules: PolicyRules });

export const ShadowPolicyObject = z.object({
  id: z.string(),
  rules: z.array(PolicyRuleObject),
  /** The live version when the shadow table was published. */
  base_version: z.number().int(),
  created_at: z.string(),
  created_by: z.string().nullable(),
});
export type ShadowPolicyObject = z.infer<typeof ShadowPolicyObject>;

export const ShadowPromoteBody = z.strictObject({
  /** The live version the promoter saw: promoting over a newer one is refused. */
  base_version: z.number().int().min(1).optional(),
});

const DecisionSide = DecisionBrief.extend({ approver_roles: z.array(z.string()) });

export const ShadowDifferenceObject = z.object({
  id: z.string(),
  tool: z.string(),
  tool_version: z.number().int(),
  kind: z.string(),
  live: DecisionSide,
  shadow: DecisionSide,
  step: z.string().nullable(),
  run: z.string().nullable(),
  proposal: z.string().nullable(),
  created_at: z.string(),
});
export type ShadowDifferenceObject = z.infer<typeof ShadowDifferenceObject>;

export const ShadowDifferenceCounts = z.array(z.object({ tool: z.string(), kind: z.string(), count: z.number() }));
