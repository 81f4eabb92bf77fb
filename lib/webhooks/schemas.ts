import { z } from "zod";
import { httpUrl } from "@/lib/http/http-url";
import { ListQuery } from "@/lib/http/list-query";

// /v1/webhook_endpoints: admin-chosen URLs that receive the organization's
// events, signed with the Standard Webhooks scheme. Browser-safe.

export const webhookEventTypes = [
  "proposal.created",
  "proposal.approved",
  "proposal.refused",
  "proposal.expired",
  "proposal.escalated",
  "operation.unknown",
  "run.requires_action",
  "run.requires_approval",
  "run.completed",
  "run.failed",
] as const;
export const WebhookEventType = z.enum(webhookEventTypes);
export type WebhookEventType = z.infer<typeof WebhookEventType>;

const EndpointUrl = httpUrl();
const Events = z
  .array(WebhookEventType)
  .min(1)
  .max(webhookEventTypes.length)
  .refine((events) => new Set(events).size === events.length, "Each event type once.")
  .meta({ uniqueItems: true });
const Description = z.string().trim().max(200);

export const WebhookEndpointCreateBody = z.strictObject({
  url: EndpointUrl,
  events: Events,
  description: Description.optional(),
});
export type WebhookEndpointCreateBody = z.infer<typeof WebhookEndpointCreateBody>;

export const WebhookEndpointUpdateBody = z.strictObject({
  url: EndpointUrl.optional(),
  events: Events.optional(),
  description: Description.nullable().optional(),
  /** true re-enables an endpoint disabled after repeated failures; false pauses it. */
  enabled: z.boolean().optional(),
});
export type WebhookEndpointUpdateBody = z.infer<typeof WebhookEndpointUpdateBody>;

export const WebhookEndpointParams = z.strictObject({ endpoint: z.string().min(1).max(64) });
export const WebhookDeliveryParams = z.strictObject({
  endpoint: z.string().min(1).max(64),
  delivery: z.string().min(1).max(64),
});

export const WebhookEndpointStatus = z.enum(["enabled", "disabled"]);

export const WebhookEndpointObject = z.object({
  id: z.string(),
  url: z.string(),
  description: z.string().nullable(),
  events: z.array(WebhookEventType),
  status: WebhookEndpointStatus,
  /** Why it is disabled: repeated_failures (deliveries kept failing) or manual. */
  disabled_reason: z.enum(["repeated_failures", "manual"]).nullable(),
  disabled_at: z.string().nullable(),
  /** The secret's first characters, to tell secrets apart; the secret itself is shown once. */
  secret_prefix: z.string(),
  consecutive_failures: z.number().int(),
  created_at: z.string(),
});
export type WebhookEndpointObject = z.infer<typeof WebhookEndpointObject>;

export const WebhookEndpointWithSecret = WebhookEndpointObject.extend({ secret: z.string() });

export const DeliveryStatus = z.enum(["pending", "succeeded", "failed"]);
export type DeliveryStatus = z.infer<typeof DeliveryStatus>;

export const WebhookDeliveryObject = z.object({
  /** The webhook-id header: the same for every attempt, so a receiver can drop a repeat. */
  id: z.string(),
  event: z.string(),
  event_type: WebhookEventType,
  status: DeliveryStatus,
  attempts: z.number().int(),
  next_attempt_at: z.string().nullable(),
  response_status: z.number().int().nullable(),
  /** What went wrong on the last attempt: timeout, network, url_not_allowed, http_500… */
  last_error: z.string().nullable(),
  duration_ms: z.number().int().nullable(),
  delivered_at: z.string().nullable(),
  created_at: z.string(),
});
export type WebhookDeliveryObject = z.infer<typeof WebhookDeliveryObject>;

export const WebhookDeliveryListQuery = ListQuery.extend({ status: DeliveryStatus.optional() });

/** The labels the console shows for each event type. */
export const eventTypeLabels: Record<WebhookEventType, string> = {
  "proposal.created": "Proposition créée",
  "proposal.approved": "Proposition approuvée",
  "proposal.refused": "Proposition refusée",
  "proposal.expired": "Proposition expirée",
  "proposal.escalated": "Proposition escaladée",
  "operation.unknown": "Opération à issue inconnue",
  "run.requires_action": "Exécution en attente d'action",
  "run.requires_approval": "Exécution en attente d'approbation",
  "run.completed": "Exécution terminée",
  "run.failed": "Exécution en échec",
};
