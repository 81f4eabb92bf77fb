import { handle } from "@/lib/http/handler";
import { page } from "@/lib/http/validation";
import { listWebhookDeliveriesEndpoint } from "@/lib/webhooks/api";
import { listDeliveries, serializeDelivery } from "@/lib/webhooks/deliveries";

// GET /v1/webhook_endpoints/{endpoint}/deliveries — the delivery log, newest first
export const GET = handle(listWebhookDeliveriesEndpoint, async ({ principal, params, query }) =>
  page(await listDeliveries(principal.organizationId, params.endpoint, query), query.limit, serializeDelivery),
);
