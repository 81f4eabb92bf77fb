import "server-only";
import { db, isUniqueViolation } from "@/lib/db";
import { newId } from "@/lib/ids";
import { log } from "@/lib/log";
import { JOB_CONCURRENCY, JOB_LEASE_SECONDS, type JobBackend, type JobHandler } from "./types";

// The embedded runner, for the SQLite default (one host). Jobs are rows of
// BackgroundJob; one loop in the server process polls for due ones and claims
// each by a conditional update (state created → active), so two processes on
// the same file never run one job twice. A job whose process died mid-run is
// taken again once its lease ran out. Not a distributed queue: PostgreSQL
// deployments run pg-boss instead.

const POLL_MS = 500;

export function embeddedBackend(): JobBackend {
  const handlers = new Map<string, JobHandler<never>>();
  const running = new Set<Promise<void>>();
  let timer: NodeJS.Timeout | null = null;
  let stopped = false;
  let polling: Promise<void> | null = null;

  async function claim(id: string, fromState: "created" | "active"): Promise<boolean> {
    const now = new Date();
    const claimed = await db.backgroundJob.updateMany({
      where:
        fromState === "created"
          ? { id, state: "created", startAfter: { lte: now } }
          : { id, state: "active", lockedUntil: { lt: now } },
      data: {
        state: "active",
        waitingKey: null,
        attempts: { increment: 1 },
        lockedUntil: new Date(now.getTime() + JOB_LEASE_SECONDS * 1000),
      },
    });
    return claimed.count === 1;
  }

  async function settle(id: string, error: unknown): Promise<void> {
    const job = await db.backgroundJob.findUnique({ where: { id } });
    if (!job) return;
    if (error === null) {
      await db.backgroundJob.updateMany({
        where: { id, state: "active", attempts: job.attempts },
        data: { state: "completed", lockedUntil: null, finishedAt: new Date() },
      });
      return;
    }
    // Only the error's kind is kept: a message may quote the job's data.
    const lastError = error instanceof Error ? error.name : "Error";
    if (job.attempts > job.retryLimit) {
      await db.backgroundJob.updateMany({
        where: { id, state: "active", attempts: job.attempts },
        data: { state: "failed", lockedUntil: null, lastError, finishedAt: new Date() },
      });
      return;
    }
    try {
      await db.backgroundJob.updateMany({
        where: { id, state: "active", attempts: job.attempts },
        data: {
          state: "created",
          waitingKey: job.singletonKey,
          lockedUntil: null,
          lastError,
          startAfter: new Date(Date.now() + job.retryDelaySeconds * 1000),
        },
      });
    } catch (conflict) {
      // Another job with the same key already waits: it does this one's work.
      if (!isUniqueViolation(conflict)) throw conflict;
      await db.backgroundJob.update({ where: { id }, data: { state: "failed", lockedUntil: null, lastError } });
    }
  }

  async function runOne(id: string, name: string, data: unknown, attempt: number): Promise<void> {
    const handler = handlers.get(name);
    if (!handler) return;
    let failure: unknown = null;
    try {
      await (handler as JobHandler)(data as Record<string, unknown>, { id, attempt });
    } catch (error) {
      failure = error;
      log("warn", "job.failed", { job: name, attempt, error: error instanceof Error ? error.name : "Error" });
    }
    await settle(id, failure);
  }

  async function poll(): Promise<void> {
    const free = JOB_CONCURRENCY - running.size;
    if (free <= 0 || handlers.size === 0) return;
    const now = new Date();
    const names = [...handlers.keys()];
    const due = await db.backgroundJob.findMany({
      where: {
        name: { in: names },
        OR: [
          { state: "created", startAfter: { lte: now } },
          { state: "active", lockedUntil: { lt: now } },
        ],
      },
      orderBy: { startAfter: "asc" },
      take: free,
    });
    for (const job of due) {
      if (stopped) return;
      if (!(await claim(job.id, job.state as "created" | "active"))) continue;
      const task = runOne(job.id, job.name, job.data, job.attempts + 1).catch((error: unknown) =>
        log("error", "job.settle_failed", { job: job.name, error: error instanceof Error ? error.name : "Error" }),
      );
      running.add(task);
      void task.finally(() => {
        running.delete(task);
        wake();
      });
    }
  }

  function wake(): void {
    if (stopped || polling) return;
    polling = poll()
      .catch((error: unknown) =>
        log("error", "job.poll_failed", { error: error instanceof Error ? error.name : "Error" }),
      )
      .finally(() => {
        polling = null;
      });
  }

  return {
    async enqueue(name, data, options) {
      try {
        const job = await db.backgroundJob.create({
          data: {
            id: newId("job"),
            name,
            data: data as object,
            singletonKey: options.singletonKey,
            waitingKey: options.singletonKey,
            state: "created",
            startAfter: options.startAfter,
            retryLimit: options.retryLimit,
            retryDelaySeconds: options.retryDelaySeconds,
          },
          select: { id: true },
        });
        if (handlers.has(name) && options.startAfter.getTime() <= Date.now()) wake();
        return job.id;
      } catch (error) {
        if (options.singletonKey !== null && isUniqueViolation(error)) return null;
        throw error;
      }
    },
    async work(name, handler) {
      handlers.set(name, handler);
      if (!timer && !stopped) {
        timer = setInterval(wake, POLL_MS);
        timer.unref();
      }
      wake();
    },
    async stop() {
      stopped = true;
      if (timer) clearInterval(timer);
      timer = null;
      await polling;
      await Promise.race([Promise.allSettled([...running]), new Promise((resolve) => setTimeout(resolve, 10_000))]);
    },
  };
}
