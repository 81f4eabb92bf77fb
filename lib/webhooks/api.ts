import { MANAGER_ROLES } from "@/lib/auth/scopes";
import { z } from "zod";
import { defineEndpoint } from "@/lib/http/endpoint";
import {
  WebhookDeliveryListQuery,
  WebhookDeliveryObject,
  WebhookDeliveryParams,
  WebhookEndpointCreateBody,
  WebhookEndpointObject,
  WebhookEndpointParams,
  WebhookEndpointUpdateBody,
  WebhookEndpointWithSecret,
} from "./schemas";

export * from "./schemas";

// Owners and admins, in the console: an endpoint receives every subscribed
// event of the organization, so choosing one is an administrator's act.
const tag = "Webhooks";

export const listWebhookEndpointsEndpoint = defineEndpoint({
  method: "GET",
  path: "/v1/webhook_endpoints",
  tag,
  summary: "List the organization's webhook endpoints (never their secrets)",
  auth: "session",
  roles: [...MANAGER_ROLES],
  response: z.object({ data: z.array(WebhookEndpointObject), next_cursor: z.null() }),
});

export const createWebhookEndpointEndpoint = defineEndpoint({
  method: "POST",
  path: "/v1/webhook_endpoints",
  tag,
  summary: "Add a webhook endpoint; its signing secret is returned once",
  auth: "session",
  roles: [...MANAGER_ROLES],
  body: WebhookEndpointCreateBody,
  status: 201,
  idempotencyReplay: "secret",
  response: z.object({ data: WebhookEndpointWithSecret }),
  errors: ["url_not_allowed", "idempotency_secret_not_replayable"],
});

export const getWebhookEndpointEndpoint = defineEndpoint({
  method: "GET",
  path: "/v1/webhook_endpoints/{endpoint}",
  tag,
  summary: "One webhook endpoint",
  auth: "session",
  roles: [...MANAGER_ROLES],
  params: WebhookEndpointParams,
  response: z.object({ data: WebhookEndpointObject }),
  errors: ["not_found"],
});

export const updateWebhookEndpointEndpoint = defineEndpoint({
  method: "PATCH",
  path: "/v1/webhook_endpoints/{endpoint}",
  tag,
  summary: "Change an endpoint's URL, events or description; enable or disable it",
  auth: "session",
  roles: [...MANAGER_ROLES],
  params: WebhookEndpointParams,
  body: WebhookEndpointUpdateBody,
  response: z.object({ data: WebhookEndpointObject }),
  errors: ["not_found", "url_not_allowed"],
});

export const deleteWebhookEndpointEndpoint = defineEndpoint({
  method: "DELETE",
  path: "/v1/webhook_endpoints/{endpoint}",
  tag,
  summary: "Delete an endpoint and its delivery log",
  auth: "session",
  roles: [...MANAGER_ROLES],
  params: WebhookEndpointParams,
  response: z.object({ data: WebhookEndpointObject }),
  errors: ["not_found"],
});

export const rotateWebhookSecretEndpoint = defineEndpoint({
  method: "POST",
  path: "/v1/webhook_endpoints/{endpoint}/rotate_secret",
  tag,
  summary: "Replace the signing secret; the new one is returned once and signs every attempt from now on",
  auth: "session",
  roles: [...MANAGER_ROLES],
  params: WebhookEndpointParams,
  idempotencyReplay: "secret",
  response: z.object({ data: WebhookEndpointWithSecret }),
  errors: ["not_found", "idempotency_secret_not_replayable"],
});

export const listWebhookDeliveriesEndpoint = defineEndpoint({
  method: "GET",
  path: "/v1/webhook_endpoints/{endpoint}/deliveries",
  tag,
  summary: "The endpoint's delivery log, newest first: status, attempts, response code, duration",
  auth: "session",
  roles: [...MANAGER_ROLES],
  params: WebhookEndpointParams,
  query: WebhookDeliveryListQuery,
  response: z.object({ data: z.array(WebhookDeliveryObject), next_cursor: z.string().nullable() }),
  errors: ["not_found"],
});

export const resendWebhookDeliveryEndpoint = defineEndpoint({
  method: "POST",
  path: "/v1/webhook_endpoints/{endpoint}/deliveries/{delivery}/resend",
  tag,
  summary: "Send a delivery again (same webhook-id), now",
  auth: "session",
  roles: [...MANAGER_ROLES],
  params: WebhookDeliveryParams,
  response: z.object({ data: WebhookDeliveryObject }),
  errors: ["not_found", "conflict"],
});
