import { MANAGER_ROLES } from "@/lib/auth/scopes";
import { z } from "zod";
import { defineEndpoint } from "@/lib/http/endpoint";
import { ListQuery } from "@/lib/http/list-query";
import { isoOffset } from "@/lib/time";
import { unguardedWriteRules } from "./engine";
import {
  PolicyPutBody,
  PolicySimulateBody,
  PolicySimulationObject,
  PolicyTableObject,
  PolicyVersionParams,
  ShadowDifferenceCounts,
  ShadowDifferenceObject,
  ShadowPolicyBody,
  ShadowPolicyObject,
  ShadowPromoteBody,
} from "./schemas";
import type { DecisionSummary } from "./compare";
import type { PolicyTable } from "./service";
import type { ShadowTable } from "./shadow";

export * from "./schemas";

// GET|PUT /v1/policies and the version history. Reading is open to anyone who
// may read tools (developers need to know what their tools will ask); changing
// who approves what takes a signed-in owner or admin — never an API key, which
// could be the agent's own.

export function serializePolicy(table: PolicyTable): PolicyTableObject {
  return {
    version: table.version,
    rules: table.rules,
    created_at: isoOffset(table.createdAt),
    created_by: table.createdById,
  };
}

export function serializeShadow(table: ShadowTable): ShadowPolicyObject {
  return {
    id: table.id,
    rules: table.rules,
    base_version: table.baseVersion,
    created_at: isoOffset(table.createdAt),
    created_by: table.createdById,
  };
}

const side = (stored: unknown) => {
  const summary = stored as DecisionSummary;
  return {
    rule: summary.rule,
    decision: summary.decision,
    approvals_required: summary.approvals_required,
    approver_roles: summary.approver_roles ?? [],
  };
};

export function serializeShadowDifference(row: {
  id: string;
  tool: string;
  toolVersion: number;
  kind: string;
  live: unknown;
  shadow: unknown;
  stepId: string | null;
  runId: string | null;
  proposalId: string | null;
  createdAt: Date;
}): ShadowDifferenceObject {
  return {
    id: row.id,
    tool: row.tool,
    tool_version: row.toolVersion,
    kind: row.kind,
    live: side(row.live),
    shadow: side(row.shadow),
    step: row.stepId,
    run: row.runId,
    proposal: row.proposalId,
    created_at: isoOffset(row.createdAt),
  };
}

export function policyWarnings(table: { rules: PolicyTable["rules"] }): string[] {
  return unguardedWriteRules(table.rules).map(
    (id) => `Rule "${id}" lets write tools run without any approval: name the tools it allows.`,
  );
}

const readScopes = ["tools:read", "agents:read", "runs:read"] as const;

export const getPolicyEndpoint = defineEndpoint({
  method: "GET",
  path: "/v1/policies",
  tag: "Policies",
  summary: "The current policy table: ordered rules deciding allow, require_approval or deny",
  auth: "both",
  scopes: [...readScopes],
  response: z.object({ data: PolicyTableObject }),
});

export const putPolicyEndpoint = defineEndpoint({
  method: "PUT",
  path: "/v1/policies",
  tag: "Policies",
  summary: "Publish a new version of the policy table (old versions are kept)",
  auth: "session",
  roles: [...MANAGER_ROLES],
  body: PolicyPutBody,
  response: z.object({ data: PolicyTableObject, warnings: z.array(z.string()) }),
  errors: ["policy_version_conflict"],
});

export const listPolicyVersionsEndpoint = defineEndpoint({
  method: "GET",
  path: "/v1/policies/versions",
  tag: "Policies",
  summary: "Every published version of the policy table, newest first",
  auth: "both",
  scopes: [...readScopes],
  query: ListQuery,
  response: z.object({ data: z.array(PolicyTableObject), next_cursor: z.string().nullable() }),
});

export const getPolicyVersionEndpoint = defineEndpoint({
  method: "GET",
  path: "/v1/policies/versions/{version}",
  tag: "Policies",
  summary: "One published version of the policy table",
  auth: "both",
  scopes: [...readScopes],
  params: PolicyVersionParams,
  response: z.object({ data: PolicyTableObject }),
  errors: ["not_found"],
});

// Simulation and shadow mode: trying a table before it binds. Simulating and
// changing the shadow table take what publishing takes (a signed-in owner or
// admin); reading the shadow table and its differences, what reading the policy takes.

export const simulatePolicyEndpoint = defineEndpoint({
  method: "POST",
  path: "/v1/policies/simulate",
  tag: "Policies",
  summary: "Evaluate a draft table against the write decisions recorded since a date; nothing is enforced",
  auth: "session",
  roles: [...MANAGER_ROLES],
  body: PolicySimulateBody,
  response: z.object({ data: PolicySimulationObject, warnings: z.array(z.string()) }),
});

export const getShadowPolicyEndpoint = defineEndpoint({
  method: "GET",
  path: "/v1/policies/shadow",
  tag: "Policies",
  summary: "The shadow table evaluated beside the live one, or null",
  auth: "both",
  scopes: [...readScopes],
  response: z.object({ data: ShadowPolicyObject.nullable() }),
});

export const putShadowPolicyEndpoint = defineEndpoint({
  method: "PUT",
  path: "/v1/policies/shadow",
  tag: "Policies",
  summary: "Publish a table in shadow mode: evaluated on every write decision, enforcing nothing (one at a time)",
  auth: "session",
  roles: [...MANAGER_ROLES],
  body: ShadowPolicyBody,
  status: 201,
  response: z.object({ data: ShadowPolicyObject, warnings: z.array(z.string()) }),
  errors: ["shadow_policy_exists"],
});

export const deleteShadowPolicyEndpoint = defineEndpoint({
  method: "DELETE",
  path: "/v1/policies/shadow",
  tag: "Policies",
  summary: "Drop the shadow table (its recorded differences are kept)",
  auth: "session",
  roles: [...MANAGER_ROLES],
  response: z.object({ data: z.object({ dropped: z.literal(true) }) }),
  errors: ["not_found"],
});

export const promoteShadowPolicyEndpoint = defineEndpoint({
  method: "POST",
  path: "/v1/policies/shadow/promote",
  tag: "Policies",
  summary: "Make the shadow table live, as a new version, and end shadow mode",
  auth: "session",
  roles: [...MANAGER_ROLES],
  body: ShadowPromoteBody,
  response: z.object({ data: PolicyTableObject, warnings: z.array(z.string()) }),
  errors: ["not_found", "policy_version_conflict"],
});

export const listShadowDifferencesEndpoint = defineEndpoint({
  method: "GET",
  path: "/v1/policies/shadow/differences",
  tag: "Policies",
  summary: "The write decisions the shadow table would have taken otherwise, newest first, with counts",
  auth: "both",
  scopes: [...readScopes],
  query: ListQuery,
  response: z.object({
    data: z.array(ShadowDifferenceObject),
    counts: ShadowDifferenceCounts,
    next_cursor: z.string().nullable(),
  }),
  errors: ["not_found"],
});
