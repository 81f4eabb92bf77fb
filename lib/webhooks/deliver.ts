import "server-only";
import { recordAudit, SYSTEM_ACTOR } from "@/lib/audit/record";
import { db, type Prisma } from "@/lib/db";
import { env } from "@/lib/env";
import { log } from "@/lib/log";
import { mailEnabled, sendMail } from "@/lib/mail/send";
import { privateOriginsFor } from "@/lib/net/origin-grants";
import { pinnedFetch } from "@/lib/net/pinned-fetch";
import { UrlNotAllowedError } from "@/lib/net/ssrf";
import { approverMail, type ApprovalPayload } from "./approver-mail";
import { openWebhookSecret, signedHeaders } from "./secret";
import { noteDelivery } from "@/lib/observability/metrics";

// Sends the outbox's due deliveries. Each is claimed by a conditional update
// (still pending, same attempt count, no live claim) before anything is sent,
// so two instances reading the same rows never send one delivery at once; a
// claim lapses after a bounded time, so a delivery whose instance died is taken
// again. A failed attempt is retried after a doubling delay for 24 h; an
// endpoint that keeps failing is disabled and the console says so.

export const RETRY_WINDOW_MS = 24 * 60 * 60 * 1000;
const MAX_DELAY_MS = 2 * 60 * 60 * 1000;
const BATCH = 10;

type DeliveryRow = Prisma.OutboxDeliveryGetPayload<{ include: { event: true; endpoint: true } }>;

interface Outcome {
  ok: boolean;
  /** false: no later attempt can succeed (the member left, the proposal closed). */
  retry: boolean;
  error: string | null;
  statusCode: number | null;
  durationMs: number | null;
}

const claimFree = (now: Date): Prisma.OutboxDeliveryWhereInput => ({
  OR: [{ claimedUntil: null }, { claimedUntil: { lt: now } }],
});

/** Delay before attempt n+1 after n failed ones: base, 2·base, 4·base… at most 2 h. */
export function retryDelayMs(failedAttempts: number, base = env.GUICHET_WEBHOOK_RETRY_BASE_MS): number {
  return Math.min(base * 2 ** Math.max(failedAttempts - 1, 0), MAX_DELAY_MS);
}

/** The deliveries this instance may send as of `now`. */
export function dueDeliveries(now: Date): Prisma.OutboxDeliveryWhereInput {
  return {
    status: "pending",
    nextAttemptAt: { lte: now },
    // E-mails wait for an instance that has a relay; a disabled endpoint's deliveries wait for it.
    AND: [
      claimFree(now),
      { OR: [...(mailEnabled() ? [{ channel: "email" }] : []), { endpoint: { status: "enabled" } }] },
    ],
  };
}

/** Sends what is due now; answers how many deliveries it attempted. */
export async function deliverDue(rounds = 20): Promise<number> {
  let attempted = 0;
  for (let round = 0; round < rounds; round++) {
    const now = new Date();
    const due = await db.outboxDelivery.findMany({
      where: dueDeliveries(now),
      orderBy: [{ nextAttemptAt: "asc" }, { id: "asc" }],
      take: BATCH,
      select: { id: true, attempts: true },
    });
    if (due.length === 0) break;
    const sent = await Promise.all(due.map((row) => deliverOne(row.id, row.attempts)));
    attempted += sent.filter(Boolean).length;
  }
  return attempted;
}

async function deliverOne(id: string, attempts: number): Promise<boolean> {
  const now = new Date();
  const claimed = await db.outboxDelivery.updateMany({
    where: { id, status: "pending", attempts, ...claimFree(now) },
    data: {
      attempts: { increment: 1 },
      // Longer than one attempt can take; past it the delivery is taken again (its instance died).
      claimedUntil: new Date(now.getTime() + 2 * env.GUICHET_WEBHOOK_TIMEOUT_MS + 5_000),
    },
  });
  if (claimed.count !== 1) return false;
  const delivery = await db.outboxDelivery.findUniqueOrThrow({
    where: { id },
    include: { event: true, endpoint: true },
  });
  let outcome: Outcome;
  try {
    outcome = delivery.channel === "webhook" ? await postWebhook(delivery) : await mailApprover(delivery);
  } catch (error) {
    // Our own failure (an unreadable secret, the database): retried like the receiver's.
    log("error", "outbox.delivery_error", { delivery: id, error: error instanceof Error ? error.name : "Error" });
    outcome = { ok: false, retry: true, error: "internal_error", statusCode: null, durationMs: null };
  }
  noteDelivery(delivery.channel, outcome.ok);
  await settle(delivery, outcome);
  return true;
}

async function settle(delivery: DeliveryRow, outcome: Outcome): Promise<void> {
  const now = new Date();
  const giveUp = !outcome.ok && (!outcome.retry || now.getTime() - delivery.createdAt.getTime() >= RETRY_WINDOW_MS);
  await db.outboxDelivery.updateMany({
    where: { id: delivery.id, attempts: delivery.attempts, status: "pending" },
    data: {
      status: outcome.ok ? "succeeded" : giveUp ? "failed" : "pending",
      claimedUntil: null,
      lastStatusCode: outcome.statusCode,
      lastError: outcome.error,
      lastDurationMs: outcome.durationMs,
      ...(outcome.ok && { deliveredAt: now }),
      ...(!outcome.ok && !giveUp && { nextAttemptAt: new Date(now.getTime() + retryDelayMs(delivery.attempts)) }),
    },
  });
  const endpoint = delivery.endpoint;
  if (!endpoint) return;
  if (outcome.ok) {
    await db.webhookEndpoint.updateMany({ where: { id: endpoint.id }, data: { consecutiveFailures: 0 } });
    return;
  }
  const failed = await db.webhookEndpoint.update({
    where: { id: endpoint.id },
    data: { consecutiveFailures: { increment: 1 } },
    select: { consecutiveFailures: true },
  });
  if (giveUp || failed.consecutiveFailures >= env.GUICHET_WEBHOOK_DISABLE_AFTER) {
    await db.$transaction(async (tx) => {
      const disabled = await tx.webhookEndpoint.updateMany({
        where: { id: endpoint.id, status: "enabled" },
        data: { status: "disabled", disabledReason: "repeated_failures", disabledAt: now },
      });
      if (disabled.count !== 1) return;
      log("warn", "webhook.endpoint_disabled", { endpoint: endpoint.id });
      await recordAudit(
        {
          organizationId: endpoint.organizationId,
          actor: SYSTEM_ACTOR,
          action: "webhook_endpoint.disabled",
          target: { type: "webhook_endpoint", id: endpoint.id },
          details: { reason: "repeated_failures", consecutive_failures: failed.consecutiveFailures },
        },
        tx,
      );
    });
  }
}

async function postWebhook(delivery: DeliveryRow): Promise<Outcome> {
  const endpoint = delivery.endpoint!;
  const body = JSON.stringify(delivery.event.payload);
  const secret = openWebhookSecret(endpoint.secretEncrypted, endpoint.id);
  const headers = {
    ...signedHeaders(secret, delivery.id, new Date(), body),
    "content-type": "application/json",
    "user-agent": "Guichet-Webhooks/1",
  };
  const started = performance.now();
  const elapsed = () => Math.round(performance.now() - started);
  try {
    // The URL is checked again at each attempt against the organization's grants, and the socket pinned to the checked address.
    const privateOrigins = await privateOriginsFor(delivery.organizationId);
    const response = await pinnedFetch({ privateOrigins })(endpoint.url, {
      method: "POST",
      headers,
      body,
      signal: AbortSignal.timeout(env.GUICHET_WEBHOOK_TIMEOUT_MS),
    });
    // The receiver's answer is not kept: only its status counts.
    await response.body?.cancel().catch(() => undefined);
    const ok = response.status >= 200 && response.status < 300;
    return {
      ok,
      retry: true,
      error: ok ? null : `http_${response.status}`,
      statusCode: response.status,
      durationMs: elapsed(),
    };
  } catch (error) {
    const kind =
      error instanceof UrlNotAllowedError
        ? "url_not_allowed"
        : error instanceof Error && (error.name === "TimeoutError" || error.name === "AbortError")
          ? "timeout"
          : "network";
    return { ok: false, retry: true, error: kind, statusCode: null, durationMs: elapsed() };
  }
}

const closed = (error: string): Outcome => ({ ok: false, retry: false, error, statusCode: null, durationMs: null });

async function mailApprover(delivery: DeliveryRow): Promise<Outcome> {
  if (!mailEnabled()) return closed("mail_disabled");
  const data = (delivery.event.payload as { data?: ApprovalPayload & { approver_roles?: string[] } }).data;
  if (!data || !delivery.memberId) return closed("invalid_event");
  // Checked again at each attempt: a member removed, deactivated, demoted or opted out since is not mailed.
  const member = await db.member.findFirst({
    where: { id: delivery.memberId, organizationId: delivery.organizationId, deactivatedAt: null },
  });
  if (!member || !(data.approver_roles ?? []).includes(member.role)) return closed("not_an_approver");
  const preference = await db.memberPreference.findUnique({ where: { memberId: member.id } });
  if (preference && !preference.approvalEmails) return closed("preference_off");
  const proposal = await db.proposal.findUnique({
    where: { id: data.proposal },
    select: { status: true, expiresAt: true },
  });
  if (!proposal || proposal.status !== "pending" || proposal.expiresAt <= new Date()) return closed("proposal_closed");
  const organization = await db.organization.findUniqueOrThrow({ where: { id: delivery.organizationId } });
  const started = performance.now();
  try {
    await sendMail(
      approverMail(member.email, member.name, organization.name, data, {
        escalated: delivery.event.type === "proposal.escalated",
      }),
    );
    return {
      ok: true,
      retry: true,
      error: null,
      statusCode: null,
      durationMs: Math.round(performance.now() - started),
    };
  } catch {
    // The relay's message may quote the address: only the kind is kept.
    return {
      ok: false,
      retry: true,
      error: "smtp",
      statusCode: null,
      durationMs: Math.round(performance.now() - started),
    };
  }
}
