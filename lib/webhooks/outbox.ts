import "server-only";
import { z } from "zod";
import { env } from "@/lib/env";
import { newId } from "@/lib/ids";
import { Prisma, type DbOrTx } from "@/lib/db";
import { mailEnabled } from "@/lib/mail/send";
import { WebhookEventType, type WebhookEventType as EventType } from "./schemas";

// The durable outbox. `recordEvent` runs inside the transaction of the change it
// reports: the event and its deliveries (one per subscribed endpoint, one per
// approver to e-mail) commit or vanish with that change, so an event is never
// lost to a crash between "it happened" and "tell someone". The background
// delivery (deliver.ts) sends them afterwards, retrying until it succeeds.
//
// Payloads carry ids, the effect sentence, the amount, the expiry and a console
// link: never a tool's arguments or results.

export interface EventData {
  [key: string]: Prisma.InputJsonValue | null;
}

export interface ApproverNotice {
  /** The roles the proposal's rule names as approvers. */
  roles: readonly string[];
  /** The requester, left out when the rule forbids approving one's own request. */
  exclude: string | null;
  /**
   * Recorded by a background poll (escalation), on whichever instance claimed it: the e-mails are
   * written even when this instance has no relay, and wait for one that has (dueDeliveries).
   */
  fromPoll?: boolean;
}

/** The console's public origin for links sent outside (NEXTAUTH_URL, as `npm start` sets it). */
export function consoleUrl(path: string): string {
  const origin = env.consoleOrigin ?? `http://localhost:${process.env.PORT ?? "3000"}`;
  return `${origin}${path}`;
}

/** Whether an endpoint's stored `events` list names `type`. */
export function subscribesTo(events: unknown, type: EventType): boolean {
  return z.array(WebhookEventType).catch([]).parse(events).includes(type);
}

export async function recordEvent(
  tx: DbOrTx,
  organizationId: string,
  type: EventType,
  data: EventData,
  notice: ApproverNotice | null = null,
): Promise<void> {
  const now = new Date();
  const id = newId("evt");
  const payload = { type, timestamp: now.toISOString(), data };
  const endpoints = await tx.webhookEndpoint.findMany({
    where: { organizationId, status: "enabled" },
    select: { id: true, events: true },
  });
  const subscribed = endpoints.filter((endpoint) => subscribesTo(endpoint.events, type));
  const members = notice && (mailEnabled() || notice.fromPoll) ? await approversToMail(tx, organizationId, notice) : [];
  if (subscribed.length === 0 && members.length === 0) return;
  await tx.outboxEvent.create({ data: { id, organizationId, type, payload, createdAt: now } });
  await tx.outboxDelivery.createMany({
    data: [
      ...subscribed.map((endpoint) => ({ channel: "webhook", endpointId: endpoint.id, memberId: null })),
      ...members.map((memberId) => ({ channel: "email", endpointId: null, memberId })),
    ].map((target) => ({
      id: newId("msg"),
      organizationId,
      eventId: id,
      ...target,
      status: "pending",
      nextAttemptAt: now,
    })),
  });
}

async function approversToMail(tx: DbOrTx, organizationId: string, notice: ApproverNotice): Promise<string[]> {
  const members = await tx.member.findMany({
    // A deactivated member can neither sign in nor approve: telling them a proposal waits would only leak it.
    where: { organizationId, role: { in: [...notice.roles] }, deactivatedAt: null },
    select: { id: true },
  });
  const ids = members.map((member) => member.id).filter((memberId) => memberId !== notice.exclude);
  if (ids.length === 0) return [];
  const optedOut = await tx.memberPreference.findMany({
    where: { memberId: { in: ids }, approvalEmails: false },
    select: { memberId: true },
  });
  const off = new Set(optedOut.map((row) => row.memberId));
  return ids.filter((memberId) => !off.has(memberId));
}
