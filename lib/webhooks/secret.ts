import "server-only";
import { randomBytes } from "node:crypto";
import { Webhook } from "standardwebhooks";
import { decryptSecret, encryptSecret } from "@/lib/mcp/secrets";

// A webhook endpoint's signing secret: `whsec_` + 32 random bytes in base64, the
// form Standard Webhooks libraries accept. Stored encrypted with the connector
// token key, bound to the endpoint's id so a ciphertext copied onto another
// endpoint's row does not decrypt.

const bindingOf = (endpointId: string) => `webhook:${endpointId}`;

export function newWebhookSecret(): { secret: string; prefix: string } {
  const secret = `whsec_${randomBytes(32).toString("base64")}`;
  return { secret, prefix: secret.slice(0, 12) };
}

export function sealWebhookSecret(secret: string, endpointId: string): string {
  return encryptSecret(secret, bindingOf(endpointId));
}

export function openWebhookSecret(stored: string, endpointId: string): string {
  return decryptSecret(stored, bindingOf(endpointId));
}

/** The three Standard Webhooks headers for one attempt of a message. */
export function signedHeaders(secret: string, messageId: string, at: Date, body: string): Record<string, string> {
  return {
    "webhook-id": messageId,
    "webhook-timestamp": String(Math.floor(at.getTime() / 1000)),
    "webhook-signature": new Webhook(secret).sign(messageId, at, body),
  };
}
