import { actorOf } from "@/lib/audit/record";
import { handle } from "@/lib/http/handler";
import {
  deleteWebhookEndpointEndpoint,
  getWebhookEndpointEndpoint,
  updateWebhookEndpointEndpoint,
} from "@/lib/webhooks/api";
import { deleteEndpoint, getEndpoint, serializeEndpoint, updateEndpoint } from "@/lib/webhooks/endpoints";

// GET /v1/webhook_endpoints/{endpoint}
export const GET = handle(getWebhookEndpointEndpoint, async ({ principal, params }) => ({
  data: serializeEndpoint(await getEndpoint(principal.organizationId, params.endpoint)),
}));

// PATCH /v1/webhook_endpoints/{endpoint} — URL, events, description, enabled
export const PATCH = handle(updateWebhookEndpointEndpoint, async ({ principal, params, body }) => ({
  data: serializeEndpoint(await updateEndpoint(principal.organizationId, params.endpoint, body, actorOf(principal))),
}));

// DELETE /v1/webhook_endpoints/{endpoint}
export const DELETE = handle(deleteWebhookEndpointEndpoint, async ({ principal, params }) => ({
  data: serializeEndpoint(await deleteEndpoint(principal.organizationId, params.endpoint, actorOf(principal))),
}));
