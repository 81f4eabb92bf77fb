"use client";

import { useQuery } from "@tanstack/react-query";
import { call } from "@/lib/client/call";
import {
  createWebhookEndpointEndpoint,
  deleteWebhookEndpointEndpoint,
  listWebhookDeliveriesEndpoint,
  listWebhookEndpointsEndpoint,
  resendWebhookDeliveryEndpoint,
  rotateWebhookSecretEndpoint,
  updateWebhookEndpointEndpoint,
  type WebhookEndpointCreateBody,
  type WebhookEndpointUpdateBody,
} from "@/lib/webhooks/api";

// Webhook endpoints' reads and writes; every key under ["webhooks"] is built here.
export const webhookKeys = {
  all: ["webhooks"] as const,
  endpoints: () => [...webhookKeys.all, "endpoints"] as const,
  deliveries: (endpointId: string) => [...webhookKeys.all, "deliveries", endpointId] as const,
};

export function useWebhookEndpoints() {
  return useQuery({
    queryKey: webhookKeys.endpoints(),
    queryFn: ({ signal }) => call(listWebhookEndpointsEndpoint, { signal }).then((page) => page.data),
  });
}

/** The latest deliveries of one endpoint, refreshed while the log is open (attempts go out in the background). */
export function useWebhookDeliveries(endpointId: string) {
  return useQuery({
    queryKey: webhookKeys.deliveries(endpointId),
    queryFn: ({ signal }) =>
      call(listWebhookDeliveriesEndpoint, { params: { endpoint: endpointId }, query: { limit: 50 }, signal }).then(
        (page) => page.data,
      ),
    refetchInterval: 3_000,
  });
}

/** The answer carries the signing secret, shown once. */
export function createWebhookEndpoint(body: WebhookEndpointCreateBody) {
  return call(createWebhookEndpointEndpoint, { body }).then((r) => r.data);
}

export function updateWebhookEndpoint(id: string, body: WebhookEndpointUpdateBody) {
  return call(updateWebhookEndpointEndpoint, { params: { endpoint: id }, body }).then((r) => r.data);
}

/** The answer carries the new secret, shown once. */
export function rotateWebhookSecret(id: string) {
  return call(rotateWebhookSecretEndpoint, { params: { endpoint: id } }).then((r) => r.data);
}

export function deleteWebhookEndpoint(id: string) {
  return call(deleteWebhookEndpointEndpoint, { params: { endpoint: id } });
}

export function resendWebhookDelivery(endpointId: string, deliveryId: string) {
  return call(resendWebhookDeliveryEndpoint, { params: { endpoint: endpointId, delivery: deliveryId } }).then(
    (r) => r.data,
  );
}
