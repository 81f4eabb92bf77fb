import { handle } from "@/lib/http/handler";
import { resendWebhookDeliveryEndpoint } from "@/lib/webhooks/api";
import { resendDelivery, serializeDelivery } from "@/lib/webhooks/deliveries";

// POST /v1/webhook_endpoints/{endpoint}/deliveries/{delivery}/resend — « Renvoyer »
export const POST = handle(resendWebhookDeliveryEndpoint, async ({ principal, params }) => ({
  data: serializeDelivery(await resendDelivery(principal.organizationId, params.endpoint, params.delivery)),
}));
