import "server-only";
import { EventEmitter } from "node:events";
import { db, isUniqueViolation, type Prisma } from "@/lib/db";
import type { ToolEnvelope } from "@/lib/proposals/dispatch";
import { STREAM_END_EVENTS, type RunEventData, type RunEventType } from "@/lib/runs/event-schemas";

// What a managed run tells its watchers. Every event is stored with the next
// sequence number of its run before anyone sees it, so a stream is served the
// same way from any instance (GET /v1/runs/{run}/events, Last-Event-ID); this
// process's readers are woken at once, another instance's find it when they
// next look. One loop drives a run at a time, so numbers come from a
// per-process counter, checked by the primary key: a clash re-reads the last one.

const wake = new EventEmitter();
wake.setMaxListeners(0);
const lastSeq = new Map<string, number>();

type RunRef = { id: string; organizationId: string };

async function storedLastSeq(runId: string): Promise<number> {
  const last = await db.runEvent.findFirst({ where: { runId }, orderBy: { seq: "desc" }, select: { seq: true } });
  return last?.seq ?? 0;
}

export async function emitRunEvent<T extends RunEventType>(run: RunRef, type: T, data: RunEventData<T>): Promise<void> {
  for (let attempt = 0; ; attempt += 1) {
    const seq = (lastSeq.get(run.id) ?? (await storedLastSeq(run.id))) + 1;
    try {
      await db.runEvent.create({
        data: { runId: run.id, seq, organizationId: run.organizationId, type, data: data as Prisma.InputJsonObject },
      });
      lastSeq.set(run.id, seq);
      break;
    } catch (error) {
      lastSeq.delete(run.id);
      if (!isUniqueViolation(error) || attempt >= 3) throw error;
    }
  }
  // The run waits or is over: whoever drives it next (maybe another instance) numbers from the database.
  if (STREAM_END_EVENTS.has(type)) lastSeq.delete(run.id);
  wake.emit(run.id);
}

/** An event of a run nobody streams, held until the loop's next write of the run (see `heldEventRows`). */
export interface HeldRunEvent {
  type: RunEventType;
  data: unknown;
}

/**
 * Held events as rows numbered after the run's last event, to be stored in the same transaction as the run's
 * progress: one commit for a whole step instead of one per event. Read before that transaction opens (the
 * number may come from the database); call `heldEventsStored` once it committed, `forgetRunSeq` if it failed.
 */
export async function heldEventRows(run: RunRef, events: readonly HeldRunEvent[]) {
  if (!events.length) return [];
  const first = (lastSeq.get(run.id) ?? (await storedLastSeq(run.id))) + 1;
  return events.map((event, index) => ({
    runId: run.id,
    seq: first + index,
    organizationId: run.organizationId,
    type: event.type,
    data: event.data as Prisma.InputJsonObject,
  }));
}

export function heldEventsStored(runId: string, rows: ReadonlyArray<{ seq: number }>): void {
  if (!rows.length) return;
  lastSeq.set(runId, rows[rows.length - 1].seq);
  wake.emit(runId);
}

/**
 * The number the run's next event takes, when this process knows it (it numbered the run's last event):
 * given to `storeRunStatusEvent`, it spares the transaction a read. A wrong one fails on the primary key.
 */
export function knownNextSeq(runId: string, rows: ReadonlyArray<{ seq: number }> = []): number | undefined {
  if (rows.length) return rows[rows.length - 1].seq + 1;
  const last = lastSeq.get(runId);
  return last === undefined ? undefined : last + 1;
}

/** After a failed write: the next event is numbered from the database again. */
export function forgetRunSeq(runId: string): void {
  lastSeq.delete(runId);
}

/**
 * A new run's first event, written in the statement batch that stores the run's opening conversation: a
 * run just created has no event yet, so it is number 1. Call `heldEventsStored` once the batch committed.
 */
export function firstRunEvent<T extends RunEventType>(run: RunRef, type: T, data: RunEventData<T>) {
  return { runId: run.id, seq: 1, organizationId: run.organizationId, type, data: data as Prisma.InputJsonObject };
}

/**
 * Stores an event that pauses or ends the run inside the transaction that moves its status, so a reader
 * who sees the new status also finds the event. The number is `seq` when the caller knows it
 * (`knownNextSeq`), else it comes from the database (the transaction holds the run's row); call
 * `announceRunEvent` once the transaction has committed.
 */
export async function storeRunStatusEvent<T extends RunEventType>(
  tx: Prisma.TransactionClient,
  run: RunRef,
  type: T,
  data: RunEventData<T>,
  seq?: number,
): Promise<void> {
  const next =
    seq ??
    ((
      await tx.runEvent.findFirst({
        where: { runId: run.id },
        orderBy: { seq: "desc" },
        select: { seq: true },
      })
    )?.seq ?? 0) + 1;
  await tx.runEvent.create({
    data: { runId: run.id, seq: next, organizationId: run.organizationId, type, data: data as Prisma.InputJsonObject },
  });
}

/** Wakes this process's readers after `storeRunStatusEvent` committed; the next event is numbered from the database. */
export function announceRunEvent(runId: string): void {
  lastSeq.delete(runId);
  wake.emit(runId);
}

/** Calls `listener` whenever this process stores an event of the run; returns the unsubscribe. */
export function onRunEvent(runId: string, listener: () => void): () => void {
  wake.on(runId, listener);
  return () => wake.off(runId, listener);
}

/** A tool call's envelope as its `tool_call.completed` event: outcome and timing, never arguments or result. */
export function toolCallCompleted(
  call: { id: string; name: string },
  envelope: ToolEnvelope,
  startedAt: number,
): RunEventData<"tool_call.completed"> {
  const proposal = envelope.ok
    ? (envelope.evidence.proposal as { id?: unknown } | undefined)?.id
    : envelope.error.proposal_id;
  return {
    tool_call_id: call.id,
    tool: call.name,
    status: envelope.ok ? "ok" : "error",
    error_code: envelope.ok ? null : envelope.error.code,
    duration_ms: envelope.ok ? envelope.evidence.duration_ms : Math.round(performance.now() - startedAt),
    step: envelope.ok ? envelope.evidence.step : null,
    proposal: typeof proposal === "string" ? proposal : null,
  };
}
