import "server-only";
import { env } from "@/lib/env";
import { provider } from "@/lib/db";
import { embeddedBackend } from "./embedded";
import { pgBossBackend } from "./pg-boss";
import { JOB_DEFAULTS, type EnqueueOptions, type JobBackend, type JobHandler } from "./types";
import { inJobSpan, JOB_TRACE_KEY, withJobTrace } from "@/lib/observability/spans";

export type { EnqueueOptions, JobHandler, JobInfo } from "./types";

// The one way to run work outside a request: `enqueue` a named job with its
// data, and `work` a name with its handler (in the server process, see
// lib/jobs/start.ts). On PostgreSQL the jobs live in pg-boss (any instance
// takes them, each job once); on the embedded SQLite database an in-process
// runner polls a table (one host). A handler may run again after a crash or a
// failure (at-least-once): it must check the state it acts on, e.g. claim a row
// by a conditional update, rather than trust that it runs once.

export interface JobQueue {
  enqueue<T extends object>(name: string, data: T, options?: EnqueueOptions): Promise<string | null>;
  work<T extends object>(name: string, handler: JobHandler<T>): Promise<void>;
  stop(): Promise<void>;
}

const NAME = /^[a-z][a-z0-9_.-]{0,99}$/;

/** A queue of its own (a second instance in tests); the process's own is the module's functions below. */
export function createJobQueue(): JobQueue {
  let backend: Promise<JobBackend> | null = null;
  const open = () =>
    (backend ??= provider === "sqlite" ? Promise.resolve(embeddedBackend()) : pgBossBackend(env.databaseUrl));
  const registered = new Set<string>();
  const checkName = (name: string) => {
    if (!NAME.test(name)) throw new Error(`Invalid job name: ${name}`);
  };
  return {
    async enqueue(name, data, options = {}) {
      checkName(name);
      return (await open()).enqueue(name, withJobTrace(data), {
        startAfter: options.startAfter ?? new Date(),
        singletonKey: options.singletonKey ?? null,
        retryLimit: options.retryLimit ?? JOB_DEFAULTS.retryLimit,
        retryDelaySeconds: options.retryDelaySeconds ?? JOB_DEFAULTS.retryDelaySeconds,
      });
    },
    async work(name, handler) {
      checkName(name);
      if (registered.has(name)) throw new Error(`Job ${name} already has a handler`);
      registered.add(name);
      // A job continues the trace of the request that enqueued it (when tracing is on).
      const traced: typeof handler = (data, job) =>
        inJobSpan(name, (data as Record<string, unknown>)[JOB_TRACE_KEY], () => handler(data, job));
      await (await open()).work(name, traced as JobHandler<never>);
    },
    async stop() {
      const opened = backend;
      backend = null;
      registered.clear();
      if (opened) await (await opened).stop();
    },
  };
}

const globalForJobs = globalThis as unknown as { guichetJobs?: JobQueue };
const queue = (globalForJobs.guichetJobs ??= createJobQueue());

/** Adds a job; answers its id, or null when a job with the same singleton key already waits. */
export function enqueue<T extends object>(name: string, data: T, options?: EnqueueOptions): Promise<string | null> {
  return queue.enqueue(name, data, options);
}

/** Runs the named jobs in this process with `handler`, from now until stopJobs(). */
export function work<T extends object>(name: string, handler: JobHandler<T>): Promise<void> {
  return queue.work(name, handler);
}

/** Stops taking jobs and waits, bounded, for the running ones (server shutdown). */
export function stopJobs(): Promise<void> {
  return queue.stop();
}

/**
 * A job that runs every `everySeconds` on one instance at a time: each run first enqueues the next
 * (its singleton key keeps a single one waiting, whichever instance enqueues it), then does the work.
 */
export async function repeat(name: string, everySeconds: number, handler: () => Promise<void>): Promise<void> {
  const next = () =>
    enqueue(name, {}, { singletonKey: "next", startAfter: new Date(Date.now() + everySeconds * 1000) });
  await work(name, async () => {
    await next();
    await handler();
  });
  await enqueue(name, {}, { singletonKey: "next" });
}
