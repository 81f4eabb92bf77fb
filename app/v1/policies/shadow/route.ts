import {
  deleteShadowPolicyEndpoint,
  getShadowPolicyEndpoint,
  policyWarnings,
  putShadowPolicyEndpoint,
  serializeShadow,
} from "@/lib/policies/api";
import { currentShadow, dropShadow, publishShadow } from "@/lib/policies/shadow";
import { actorOf } from "@/lib/audit/record";
import { handle } from "@/lib/http/handler";

// GET /v1/policies/shadow — the shadow table, or null
export const GET = handle(getShadowPolicyEndpoint, async ({ principal }) => {
  const shadow = await currentShadow(principal.organizationId);
  return { data: shadow ? serializeShadow(shadow) : null };
});

// PUT /v1/policies/shadow — publish a table in shadow mode (one at a time)
export const PUT = handle(putShadowPolicyEndpoint, async ({ principal, body }) => {
  const shadow = await publishShadow(principal.organizationId, {
    rules: body.rules,
    createdById: principal.kind === "member" ? principal.memberId : null,
    actor: actorOf(principal),
  });
  return { data: serializeShadow(shadow), warnings: policyWarnings(shadow) };
});

// DELETE /v1/policies/shadow — drop it
export const DELETE = handle(deleteShadowPolicyEndpoint, async ({ principal }) => {
  await dropShadow(principal.organizationId, actorOf(principal));
  return { data: { dropped: true as const } };
});
