import "server-only";
import { randomBytes } from "node:crypto";
import { recordAudit, type AuditActor } from "@/lib/audit/record";
import { db, type DbOrTx, type Prisma } from "@/lib/db";
import { ApiError, notFound } from "@/lib/http/errors";
import { afterCursor } from "@/lib/http/validation";
import { newId } from "@/lib/ids";
import { decryptSecret, encryptSecret } from "@/lib/mcp/secrets";
import { isoOffset } from "@/lib/time";
import {
  WidgetAppearance,
  WidgetLimits,
  type WidgetCreateBody,
  type WidgetObject,
  type WidgetUpdateBody,
} from "./schemas";

// Widgets of an organization. The public key is public by design (it sits in
// the customer's page); the signing secret is sealed like a webhook's, bound
// to the widget's id, and returned once: at creation and at each rotation.

export type WidgetRow = Prisma.WidgetGetPayload<object>;

export const newPublicKey = () => `pk_${randomBytes(24).toString("base64url")}`;
const newSigningSecret = () => {
  const secret = `wsec_${randomBytes(32).toString("base64url")}`;
  return { secret, prefix: secret.slice(0, 10) };
};
const bindingOf = (widgetId: string) => `widget:${widgetId}`;

/** The widget's signing secret, for verifying a visitor's token (never returned by the API after it was shown). */
export function signingSecretOf(widget: Pick<WidgetRow, "id" | "secretEncrypted">): string {
  return decryptSecret(widget.secretEncrypted, bindingOf(widget.id));
}

export function allowedOriginsOf(widget: Pick<WidgetRow, "allowedOrigins">): string[] {
  return Array.isArray(widget.allowedOrigins) ? widget.allowedOrigins.filter((o) => typeof o === "string") : [];
}
export const appearanceOf = (widget: Pick<WidgetRow, "appearance">) => WidgetAppearance.parse(widget.appearance ?? {});
export const limitsOf = (widget: Pick<WidgetRow, "limits">) => WidgetLimits.parse(widget.limits ?? {});

interface Usage {
  conversations: number;
  messages: number;
  preview_conversations: number;
}

async function usageOf(organizationId: string, widgetId: string, tx: DbOrTx = db): Promise<Usage> {
  const [conversations, messages, preview_conversations] = await Promise.all([
    tx.widgetConversation.count({ where: { organizationId, widgetId } }),
    tx.widgetMessage.count({ where: { organizationId, conversation: { widgetId } } }),
    tx.widgetConversation.count({ where: { organizationId, widgetId, preview: true } }),
  ]);
  return { conversations, messages, preview_conversations };
}

export function serializeWidget(row: WidgetRow, usage: Usage): WidgetObject {
  return {
    id: row.id,
    agent: row.agentId,
    name: row.name,
    public_key: row.publicKey,
    allowed_origins: allowedOriginsOf(row),
    identity: row.identity === "verified" ? "verified" : "anonymous",
    capabilities: row.capabilities === "read_write" ? "read_write" : "read",
    instructions: row.instructions,
    appearance: appearanceOf(row),
    limits: limitsOf(row),
    active: row.active,
    signing_secret_prefix: row.secretPrefix,
    usage,
    created_at: isoOffset(row.createdAt),
    updated_at: isoOffset(row.updatedAt),
  };
}

export async function widgetObject(row: WidgetRow, tx: DbOrTx = db): Promise<WidgetObject> {
  return serializeWidget(row, await usageOf(row.organizationId, row.id, tx));
}

export async function listWidgets(organizationId: string, query: { limit: number; cursor?: string }) {
  return db.widget.findMany({
    where: { organizationId, ...afterCursor(query.cursor) },
    orderBy: [{ createdAt: "desc" }, { id: "desc" }],
    take: query.limit + 1,
  });
}

export async function getWidget(organizationId: string, id: string, tx: DbOrTx = db): Promise<WidgetRow> {
  const row = await tx.widget.findFirst({ where: { id, organizationId } });
  if (!row) throw notFound("Widget");
  return row;
}

const target = (id: string) => ({ type: "widget", id });

async function assertAgent(organizationId: string, agentId: string, tx: DbOrTx): Promise<void> {
  const agent = await tx.agent.findFirst({ where: { id: agentId, organizationId }, select: { id: true } });
  if (!agent)
    throw new ApiError("not_found", "Agent not found.", {
      errors: [{ field: "agent", code: "not_found", message: `No agent ${agentId}.` }],
    });
}

export async function createWidget(
  organizationId: string,
  body: WidgetCreateBody,
  actor: AuditActor,
): Promise<{ widget: WidgetRow; secret: string }> {
  const id = newId("wdg");
  const { secret, prefix } = newSigningSecret();
  const widget = await db.$transaction(async (tx) => {
    await assertAgent(organizationId, body.agent, tx);
    const created = await tx.widget.create({
      data: {
        id,
        organizationId,
        agentId: body.agent,
        name: body.name,
        publicKey: newPublicKey(),
        secretEncrypted: encryptSecret(secret, bindingOf(id)),
        secretPrefix: prefix,
        allowedOrigins: body.allowed_origins,
        identity: body.identity,
        capabilities: body.capabilities,
        instructions: body.instructions || null,
        appearance: body.appearance,
        limits: body.limits,
        active: body.active,
      },
    });
    await recordAudit(
      {
        organizationId,
        actor,
        action: "widget.created",
        target: target(id),
        details: {
          agent: body.agent,
          identity: body.identity,
          capabilities: body.capabilities,
          allowed_origins: body.allowed_origins,
        },
      },
      tx,
    );
    return created;
  });
  return { widget, secret };
}

export async function updateWidget(
  organizationId: string,
  id: string,
  body: WidgetUpdateBody,
  actor: AuditActor,
): Promise<WidgetRow> {
  return db.$transaction(async (tx) => {
    const existing = await getWidget(organizationId, id, tx);
    const data = {
      name: body.name,
      allowedOrigins: body.allowed_origins,
      identity: body.identity,
      capabilities: body.capabilities,
      instructions: body.instructions === undefined ? undefined : body.instructions || null,
      appearance: body.appearance ? { ...appearanceOf(existing), ...body.appearance } : undefined,
      limits: body.limits ? { ...limitsOf(existing), ...body.limits } : undefined,
      active: body.active,
    };
    const updated = await tx.widget.update({ where: { id: existing.id }, data });
    const fields = Object.entries(body)
      .filter(([, value]) => value !== undefined)
      .map(([key]) => key);
    await recordAudit(
      {
        organizationId,
        actor,
        action: "widget.updated",
        target: target(id),
        details: {
          fields,
          ...(body.allowed_origins && { allowed_origins: body.allowed_origins }),
          ...(body.capabilities && { capabilities: body.capabilities }),
          ...(body.active !== undefined && { active: body.active }),
        },
      },
      tx,
    );
    return updated;
  });
}

export async function deleteWidget(organizationId: string, id: string, actor: AuditActor): Promise<void> {
  await db.$transaction(async (tx) => {
    const existing = await getWidget(organizationId, id, tx);
    await tx.widget.delete({ where: { id: existing.id } });
    await recordAudit(
      { organizationId, actor, action: "widget.deleted", target: target(id), details: { name: existing.name } },
      tx,
    );
  });
}

export async function rotatePublicKey(organizationId: string, id: string, actor: AuditActor): Promise<WidgetRow> {
  return db.$transaction(async (tx) => {
    const existing = await getWidget(organizationId, id, tx);
    const updated = await tx.widget.update({ where: { id: existing.id }, data: { publicKey: newPublicKey() } });
    await recordAudit({ organizationId, actor, action: "widget.public_key_rotated", target: target(id) }, tx);
    return updated;
  });
}

export async function rotateSigningSecret(
  organizationId: string,
  id: string,
  actor: AuditActor,
): Promise<{ widget: WidgetRow; secret: string }> {
  const { secret, prefix } = newSigningSecret();
  const widget = await db.$transaction(async (tx) => {
    const existing = await getWidget(organizationId, id, tx);
    const updated = await tx.widget.update({
      where: { id: existing.id },
      data: { secretEncrypted: encryptSecret(secret, bindingOf(existing.id)), secretPrefix: prefix },
    });
    await recordAudit({ organizationId, actor, action: "widget.secret_rotated", target: target(id) }, tx);
    return updated;
  });
  return { widget, secret };
}
