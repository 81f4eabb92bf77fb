import { policyWarnings, promoteShadowPolicyEndpoint, serializePolicy } from "@/lib/policies/api";
import { promoteShadow } from "@/lib/policies/shadow";
import { actorOf } from "@/lib/audit/record";
import { handle } from "@/lib/http/handler";

// POST /v1/policies/shadow/promote — the shadow table becomes the next live version
export const POST = handle(promoteShadowPolicyEndpoint, async ({ principal, body }) => {
  const table = await promoteShadow(principal.organizationId, {
    baseVersion: body.base_version,
    createdById: principal.kind === "member" ? principal.memberId : null,
    actor: actorOf(principal),
  });
  return { data: serializePolicy(table), warnings: policyWarnings(table) };
});
