import { actorOf } from "@/lib/audit/record";
import { handle } from "@/lib/http/handler";
import { rotateWebhookSecretEndpoint } from "@/lib/webhooks/api";
import { rotateEndpointSecret, serializeEndpoint } from "@/lib/webhooks/endpoints";

// POST /v1/webhook_endpoints/{endpoint}/rotate_secret — a new secret, shown once
export const POST = handle(rotateWebhookSecretEndpoint, async ({ principal, params }) => {
  const { endpoint, secret } = await rotateEndpointSecret(
    principal.organizationId,
    params.endpoint,
    actorOf(principal),
  );
  return { data: { ...serializeEndpoint(endpoint), secret } };
});
