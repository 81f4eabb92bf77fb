import { actorOf } from "@/lib/audit/record";
import { handle } from "@/lib/http/handler";
import { createWebhookEndpointEndpoint, listWebhookEndpointsEndpoint } from "@/lib/webhooks/api";
import { createEndpoint, listEndpoints, serializeEndpoint } from "@/lib/webhooks/endpoints";

// GET /v1/webhook_endpoints — the organization's endpoints (owner, admin)
export const GET = handle(listWebhookEndpointsEndpoint, async ({ principal }) => ({
  data: (await listEndpoints(principal.organizationId)).map(serializeEndpoint),
  next_cursor: null,
}));

// POST /v1/webhook_endpoints — add one; the secret is shown once
export const POST = handle(createWebhookEndpointEndpoint, async ({ principal, body }) => {
  const { endpoint, secret } = await createEndpoint(principal.organizationId, body, actorOf(principal));
  return { data: { ...serializeEndpoint(endpoint), secret } };
});
