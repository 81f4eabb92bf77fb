import "server-only";
import { db } from "@/lib/db";
import { effectiveStatus } from "@/lib/runs/model";
import { STREAM_END_EVENTS } from "@/lib/runs/event-schemas";
import { onRunEvent } from "./events";

// A run's stored events as a Server-Sent Events response. The reader sends
// every event after `afterSeq` in order, then waits: woken at once by this
// process's loop, or looking again every POLL_MS for a loop on another
// instance. It ends when the last stored event pauses or ends the run, or when
// the run is no longer active and nothing is left to send (cancelled, expired,
// already waiting). Closing it never touches the run.

const POLL_MS = 250;
const KEEP_ALIVE_MS = 15_000;
const BATCH = 200;

export const EVENT_STREAM_HEADERS = {
  "content-type": "text/event-stream; charset=utf-8",
  // no-transform keeps compression (which would hold the events back) off the stream.
  "cache-control": "no-cache, no-transform",
  "x-accel-buffering": "no",
};

function frame(seq: number, type: string, data: unknown): string {
  return `id: ${seq}\nevent: ${type}\ndata: ${JSON.stringify(data)}\n\n`;
}

/** The sequence number a reconnecting client last received (`Last-Event-ID`), or 0. */
export function lastEventId(header: string | null): number {
  if (header === null || !/^\d{1,9}$/.test(header.trim())) return 0;
  return Number(header.trim());
}

export function runEventStream(
  run: { id: string; organizationId: string },
  afterSeq: number,
): ReadableStream<Uint8Array> {
  const encoder = new TextEncoder();
  let closed = false;
  let wakeUp: (() => void) | null = null;
  const unsubscribe = onRunEvent(run.id, () => wakeUp?.());
  const pause = (ms: number) =>
    new Promise<void>((resolve) => {
      const timer = setTimeout(done, ms);
      function done() {
        clearTimeout(timer);
        wakeUp = null;
        resolve();
      }
      wakeUp = done;
    });
  const stop = () => {
    closed = true;
    unsubscribe();
    wakeUp?.();
  };
  return new ReadableStream<Uint8Array>({
    async start(controller) {
      let seq = afterSeq;
      let lastType = "";
      let idleSince = Date.now();
      try {
        while (!closed) {
          const events = await db.runEvent.findMany({
            where: { runId: run.id, organizationId: run.organizationId, seq: { gt: seq } },
            orderBy: { seq: "asc" },
            take: BATCH,
            select: { seq: true, type: true, data: true },
          });
          for (const event of events) {
            if (closed) return;
            controller.enqueue(encoder.encode(frame(event.seq, event.type, event.data)));
            seq = event.seq;
            lastType = event.type;
          }
          // A full batch, or a pause or end just sent: look again at once for what follows.
          if (events.length === BATCH || (events.length && STREAM_END_EVENTS.has(lastType))) continue;
          if (events.length) idleSince = Date.now();
          // The last stored event pauses or ends the run (a replay goes past earlier pauses): done.
          else if (STREAM_END_EVENTS.has(lastType)) return stop();
          else {
            const state = await db.run.findFirst({
              where: { id: run.id, organizationId: run.organizationId },
              select: { status: true, expiresAt: true },
            });
            // Read once more after the status: an event stored between the two reads is not lost.
            if (!state || effectiveStatus(state) !== "active") {
              const late = await db.runEvent.count({ where: { runId: run.id, seq: { gt: seq } } });
              if (late === 0) return stop();
              continue;
            }
            if (Date.now() - idleSince >= KEEP_ALIVE_MS) {
              controller.enqueue(encoder.encode(": keep-alive\n\n"));
              idleSince = Date.now();
            }
          }
          await pause(POLL_MS);
        }
      } catch (error) {
        if (!closed) controller.error(error);
        stop();
        return;
      } finally {
        if (closed) {
          try {
            controller.close();
          } catch {
            // already closed by the client going away
          }
        }
      }
    },
    cancel() {
      stop();
    },
  });
}
