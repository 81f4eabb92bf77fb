import "server-only";
import { log } from "@/lib/log";
import { purgeExpiredAuditEvents } from "@/lib/audit/purge";
import { registerRunJobs } from "@/lib/agent-loop/jobs";
import { registerOperationJobs } from "@/lib/operations/jobs";
import { startOutboxJobs, stopOutboxJobs } from "@/lib/webhooks/jobs";
import { repeat, stopJobs } from "./index";
import { JOBS } from "./names";

// The server process's background work, started once from instrumentation.ts.
// Each domain registers its handlers here (one call each), so every job name
// has its worker on every instance.
//
// Starting never fails the server: with the database down, the API still
// answers (health says 503) and the jobs start on a later attempt.

const RETRY_MS = 15_000;
let started: Promise<void> | null = null;
let signalsHooked = false;
let stopping: Promise<void> | null = null;

/** Stops the background work once (a signal, or the server's graceful shutdown awaiting it). */
export function stopBackgroundWork(): Promise<void> {
  return (stopping ??= Promise.all([stopJobs(), stopOutboxJobs()]).then(() => undefined));
}

async function registerAll(): Promise<void> {
  // Domains' job handlers, one line each.
  await registerRunJobs();
  await registerOperationJobs();
  await startOutboxJobs();
  await repeat(JOBS.auditRetention, 6 * 60 * 60, async () => {
    const purged = await purgeExpiredAuditEvents();
    if (purged > 0) log("info", "audit.purged", { events: purged });
  });
}

export function startBackgroundWork(): Promise<void> {
  return (started ??= (async () => {
    try {
      await registerAll();
    } catch (error) {
      log("error", "jobs.start_failed", {
        error: error instanceof Error ? error.name : "unknown",
        code: (error as { code?: unknown })?.code ?? null,
        retry_in_ms: RETRY_MS,
      });
      // A clean slate (no backend, no registered names) for the next attempt.
      await stopJobs().catch(() => undefined);
      await stopOutboxJobs();
      started = null;
      setTimeout(() => void startBackgroundWork(), RETRY_MS).unref();
      return;
    }
    if (!signalsHooked) {
      signalsHooked = true;
      for (const signal of ["SIGTERM", "SIGINT"] as const) process.once(signal, () => void stopBackgroundWork());
      // server/main.mjs (plain JavaScript, outside the build) awaits it before the process exits.
      (globalThis as Record<symbol, unknown>)[Symbol.for("guichet.stopBackgroundWork")] = stopBackgroundWork;
    }
    log("info", "jobs.started");
  })());
}
