import { getPolicyEndpoint, policyWarnings, putPolicyEndpoint, serializePolicy } from "@/lib/policies/api";
import { currentPolicy, publishPolicy } from "@/lib/policies/service";
import { actorOf } from "@/lib/audit/record";
import { handle } from "@/lib/http/handler";

// GET /v1/policies — the current policy table
export const GET = handle(getPolicyEndpoint, async ({ principal }) => ({
  data: serializePolicy(await currentPolicy(principal.organizationId)),
}));

// PUT /v1/policies — publish a new version (owner or admin, signed in)
export const PUT = handle(putPolicyEndpoint, async ({ principal, body }) => {
  const table = await publishPolicy(principal.organizationId, {
    rules: body.rules,
    baseVersion: body.base_version,
    createdById: principal.kind === "member" ? principal.memberId : null,
    actor: actorOf(principal),
  });
  return { data: serializePolicy(table), warnings: policyWarnings(table) };
});
