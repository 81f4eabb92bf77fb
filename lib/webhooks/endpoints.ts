import "server-only";
import { z } from "zod";
import { recordAudit, type AuditActor } from "@/lib/audit/record";
import { db, type DbOrTx, type Prisma } from "@/lib/db";
import { notFound } from "@/lib/http/errors";
import { newId } from "@/lib/ids";
import { assertAdminUrl } from "@/lib/net/origin-grants";
import { isoOffset, isoOffsetOrNull } from "@/lib/time";
import {
  WebhookEventType,
  type WebhookEndpointCreateBody,
  type WebhookEndpointObject,
  type WebhookEndpointUpdateBody,
} from "./schemas";
import { newWebhookSecret, sealWebhookSecret } from "./secret";

// Webhook endpoints of an organization. The URL passes the same network policy
// as an MCP server's (an admin chose it); the secret is returned once, at
// creation and at each rotation, and never again.

export type WebhookEndpointRow = Prisma.WebhookEndpointGetPayload<object>;

export function serializeEndpoint(row: WebhookEndpointRow): WebhookEndpointObject {
  return {
    id: row.id,
    url: row.url,
    description: row.description,
    events: z.array(WebhookEventType).catch([]).parse(row.events),
    status: row.status === "enabled" ? "enabled" : "disabled",
    disabled_reason:
      row.disabledReason === "repeated_failures" || row.disabledReason === "manual" ? row.disabledReason : null,
    disabled_at: isoOffsetOrNull(row.disabledAt),
    secret_prefix: row.secretPrefix,
    consecutive_failures: row.consecutiveFailures,
    created_at: isoOffset(row.createdAt),
  };
}

export function listEndpoints(organizationId: string, tx: DbOrTx = db): Promise<WebhookEndpointRow[]> {
  return tx.webhookEndpoint.findMany({ where: { organizationId }, orderBy: [{ createdAt: "asc" }, { id: "asc" }] });
}

export async function getEndpoint(organizationId: string, id: string, tx: DbOrTx = db): Promise<WebhookEndpointRow> {
  const row = await tx.webhookEndpoint.findFirst({ where: { id, organizationId } });
  if (!row) throw notFound("Webhook endpoint");
  return row;
}

const endpointTarget = (id: string) => ({ type: "webhook_endpoint", id });
/** Where events go, for the audit trail: no query string or credentials, which may carry a receiver's token. */
const auditUrl = (value: string) => {
  const url = new URL(value);
  return `${url.origin}${url.pathname}`.slice(0, 254);
};

export async function createEndpoint(
  organizationId: string,
  body: WebhookEndpointCreateBody,
  actor: AuditActor,
): Promise<{ endpoint: WebhookEndpointRow; secret: string }> {
  await assertAdminUrl(organizationId, body.url, "url");
  const id = newId("whe");
  const { secret, prefix } = newWebhookSecret();
  const endpoint = await db.$transaction(async (tx) => {
    const created = await tx.webhookEndpoint.create({
      data: {
        id,
        organizationId,
        url: body.url,
        description: body.description || null,
        events: [...body.events],
        secretEncrypted: sealWebhookSecret(secret, id),
        secretPrefix: prefix,
        status: "enabled",
        createdById: actor.type === "member" ? actor.id : null,
      },
    });
    await recordAudit(
      {
        organizationId,
        actor,
        action: "webhook_endpoint.created",
        target: endpointTarget(id),
        details: { url: auditUrl(created.url), events: [...body.events] },
      },
      tx,
    );
    return created;
  });
  return { endpoint, secret };
}

export async function updateEndpoint(
  organizationId: string,
  id: string,
  body: WebhookEndpointUpdateBody,
  actor: AuditActor,
): Promise<WebhookEndpointRow> {
  const existing = await getEndpoint(organizationId, id);
  if (body.url !== undefined && body.url !== existing.url) await assertAdminUrl(organizationId, body.url, "url");
  const status = body.enabled === undefined ? undefined : body.enabled ? ("enabled" as const) : ("disabled" as const);
  return db.$transaction(async (tx) => {
    const updated = await tx.webhookEndpoint.update({
      where: { id: existing.id },
      data: {
        url: body.url,
        events: body.events ? [...body.events] : undefined,
        description: body.description === undefined ? undefined : body.description || null,
        ...(status === "enabled" && { status, disabledReason: null, disabledAt: null, consecutiveFailures: 0 }),
        ...(status === "disabled" &&
          existing.status === "enabled" && { status, disabledReason: "manual", disabledAt: new Date() }),
      },
    });
    const target = endpointTarget(existing.id);
    // Which fields changed (the URL's new value too: it is where events go), never the secret.
    const fields = [
      ...(updated.url !== existing.url ? ["url"] : []),
      ...(JSON.stringify(updated.events) !== JSON.stringify(existing.events) ? ["events"] : []),
      ...(updated.description !== existing.description ? ["description"] : []),
    ];
    if (fields.length)
      await recordAudit(
        {
          organizationId,
          actor,
          action: "webhook_endpoint.updated",
          target,
          details: { fields, ...(fields.includes("url") && { url: auditUrl(updated.url) }) },
        },
        tx,
      );
    if (updated.status !== existing.status)
      await recordAudit(
        {
          organizationId,
          actor,
          action: updated.status === "enabled" ? "webhook_endpoint.enabled" : "webhook_endpoint.disabled",
          target,
          // Re-enabling after the outbox gave up says so: the failures it clears are part of the story.
          details: {
            previous_reason: existing.disabledReason,
            ...(updated.status === "enabled" && { cleared_failures: existing.consecutiveFailures }),
          },
        },
        tx,
      );
    return updated;
  });
}

/** A new secret, effective for every attempt from now on (pending deliveries included). */
export async function rotateEndpointSecret(
  organizationId: string,
  id: string,
  actor: AuditActor,
): Promise<{ endpoint: WebhookEndpointRow; secret: string }> {
  const existing = await getEndpoint(organizationId, id);
  const { secret, prefix } = newWebhookSecret();
  const endpoint = await db.$transaction(async (tx) => {
    const rotated = await tx.webhookEndpoint.update({
      where: { id: existing.id },
      data: { secretEncrypted: sealWebhookSecret(secret, existing.id), secretPrefix: prefix },
    });
    // The prefixes tell the secrets apart in the trail; the secret itself is never recorded.
    await recordAudit(
      {
        organizationId,
        actor,
        action: "webhook_endpoint.secret_rotated",
        target: endpointTarget(existing.id),
        details: { previous_prefix: existing.secretPrefix, prefix },
      },
      tx,
    );
    return rotated;
  });
  return { endpoint, secret };
}

/** Deletes the endpoint and its delivery log; undelivered events for it are dropped. */
export async function deleteEndpoint(
  organizationId: string,
  id: string,
  actor: AuditActor,
): Promise<WebhookEndpointRow> {
  const existing = await getEndpoint(organizationId, id);
  await db.$transaction(async (tx) => {
    await tx.webhookEndpoint.delete({ where: { id: existing.id } });
    await recordAudit(
      {
        organizationId,
        actor,
        action: "webhook_endpoint.deleted",
        target: endpointTarget(existing.id),
        details: { url: auditUrl(existing.url) },
      },
      tx,
    );
  });
  return existing;
}
