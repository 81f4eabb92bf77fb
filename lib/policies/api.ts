import { MANAGER_ROLES } from "@/lib/auth/scopes";
import { z } from "zod";
import { defineEndpoint } from "@/lib/http/endpoint";
import { ListQuery } from "@/lib/http/list-query";
import { isoOffset } from "@/lib/time";
import { unguardedWriteRules } from "./engine";
import { PolicyPutBody, PolicyTableObject, PolicyVersionParams } from "./schemas";
import type { PolicyTable } from "./service";

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

export function policyWarnings(table: PolicyTable): string[] {
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
