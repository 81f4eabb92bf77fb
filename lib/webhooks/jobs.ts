import "server-only";
import { db, type DbOrTx } from "@/lib/db";
import { env } from "@/lib/env";
import { log } from "@/lib/log";
import { escalateDue, escalationDue } from "@/lib/proposals/escalation";
import { expireDue, expiryDue } from "@/lib/proposals/service";
import { deliverDue, dueDeliveries } from "./deliver";

// Every instance reads the outbox every GUICHET_OUTBOX_POLL_MS: first, reading
// only, whether anything is due — a proposal whose expiry passed and is not
// written down yet (its event must go out even if nobody opens it), a proposal
// whose escalation came due, a delivery whose time came. Only then does it
// write: the expiries, the escalations, then the deliveries,
// each claimed by a conditional update, so instances polling the same rows
// never send one twice. An idle outbox costs three reads per poll and no
// write (a scheduled job per poll would insert and update a row each time).

let timer: NodeJS.Timeout | null = null;
let polling: Promise<boolean> | null = null;

/** Whether a poll at `now` has anything to do; reads only. */
export async function outboxDue(now: Date, client: DbOrTx = db): Promise<boolean> {
  const [expiry, escalation, delivery] = await Promise.all([
    client.proposal.findFirst({ where: expiryDue(now), select: { id: true } }),
    client.proposal.findFirst({ where: escalationDue(now), select: { id: true } }),
    client.outboxDelivery.findFirst({ where: dueDeliveries(now), select: { id: true } }),
  ]);
  return expiry !== null || escalation !== null || delivery !== null;
}

/** One poll: answers false, having written nothing, when nothing was due at `now`. */
export async function pollOutbox(now = new Date(), client: DbOrTx = db): Promise<boolean> {
  if (!(await outboxDue(now, client))) return false;
  await expireDue(now);
  // Escalations record their e-mails and webhooks in the outbox: delivered by the same poll.
  await escalateDue(now);
  await deliverDue();
  return true;
}

function tick(): void {
  if (polling) return;
  polling = pollOutbox()
    .catch((error: unknown) => {
      log("error", "outbox.poll_failed", { error: error instanceof Error ? error.name : "Error" });
      return false;
    })
    .finally(() => {
      polling = null;
    });
}

export async function startOutboxJobs(): Promise<void> {
  if (timer) return;
  timer = setInterval(tick, env.GUICHET_OUTBOX_POLL_MS);
  timer.unref();
  tick();
  log("info", "outbox.started");
}

/** Stops polling and waits for the poll under way (server shutdown). */
export async function stopOutboxJobs(): Promise<void> {
  if (timer) clearInterval(timer);
  timer = null;
  await polling;
}
