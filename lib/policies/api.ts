import { z } from "zod";
import { defineEndpoint } from "@/lib/http/endpoint";
import { ListQuery } from "@/lib/http/validation";
import { isoOffset } from "@/lib/time";
import { unguardedWriteRules } from "./engine";
import { ApproverRole, PolicyAction, PolicyDecisionKind, PolicyRules } from "./rules";
import type { PolicyTable } from "./service";

// GET|PUT /v1/policies and the version history. Reading is open to anyone who
// may read tools (developers need to know what their tools will ask); changing
// who approves what takes a signed-in owner or admin — never an API key, which
// could be the agent's own.

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
});
export type PolicyRuleObject = z.infer<typeof PolicyRuleObject>;

export const PolicyTableObject = z.object({
  version: z.number().int(),
  rules: z.array(PolicyRuleObject),
  created_at: z.string(),
  created_by: z.string().nullable(),
});
export type PolicyTableObject = z.infer<typeof PolicyTableObject>;

export function serializePolicy(table: PolicyTable): PolicyTableObject {
  return { version: table.version, rules: table.rules, created_at: isoOffset(table.createdAt), created_by: table.createdById };
}

export const PolicyPutBody = z.strictObject({
  rules: PolicyRules,
  /** The version the editor started from: publishing over a newer one is refused. */
  base_version: z.number().int().min(1).optional(),
});

export function policyWarnings(table: PolicyTable): string[] {
  return unguardedWriteRules(table.rules).map((id) => `Rule "${id}" lets write tools run without any approval: name the tools it allows.`);
}

const readScopes = ["tools:read", "agents:read", "runs:read"] as const;

export const getPolicyEndpoint = defineEndpoint({
  method: "GET", path: "/v1/policies", tag: "Policies", summary: "The current policy table: ordered rules deciding allow, require_approval or deny",
  auth: "both", scopes: [...readScopes],
  response: z.object({ data: PolicyTableObject }),
});

export const putPolicyEndpoint = defineEndpoint({
  method: "PUT", path: "/v1/policies", tag: "Policies", summary: "Publish a new version of the policy table (old versions are kept)",
  auth: "session", roles: ["owner", "admin"], body: PolicyPutBody,
  response: z.object({ data: PolicyTableObject, warnings: z.array(z.string()) }), errors: ["policy_version_conflict"],
});

export const listPolicyVersionsEndpoint = defineEndpoint({
  method: "GET", path: "/v1/policies/versions", tag: "Policies", summary: "Every published version of the policy table, newest first",
  auth: "both", scopes: [...readScopes], query: ListQuery,
  response: z.object({ data: z.array(PolicyTableObject), next_cursor: z.string().nullable() }),
});

export const PolicyVersionParams = z.strictObject({ version: z.coerce.number().int().min(1).max(1_000_000) });

export const getPolicyVersionEndpoint = defineEndpoint({
  method: "GET", path: "/v1/policies/versions/{version}", tag: "Policies", summary: "One published version of the policy table",
  auth: "both", scopes: [...readScopes], params: PolicyVersionParams,
  response: z.object({ data: PolicyTableObject }), errors: ["not_found"],
});
