import "server-only";
import type PgBoss from "pg-boss";
import { log } from "@/lib/log";
import { JOB_CONCURRENCY, JOB_LEASE_SECONDS, type JobBackend, type JobHandler } from "./types";

// PostgreSQL: pg-boss, in its own `pgboss` schema of Guichet's database. Every
// instance enqueues and works; pg-boss claims each job for one of them
// (SELECT … FOR UPDATE SKIP LOCKED) and retries a job whose instance died once
// its lease runs out. Queues use the `short` policy: one waiting job per
// singleton key, which is what EnqueueOptions.singletonKey promises.

const SCHEMA = "pgboss";
const POLLING_SECONDS = 0.5;

/** Jobs without a key get a unique one: under `short`, keyless waiting jobs would share the empty key. */
const KEYLESS = "~";

export async function pgBossBackend(connectionString: string): Promise<JobBackend> {
  const { default: Boss } = await import("pg-boss");
  const boss: PgBoss = new Boss({ connectionString, schema: SCHEMA, application_name: "guichet-jobs" });
  // pg-boss reports its own background errors (maintenance, a lost connection) here instead of throwing.
  boss.on("error", (error: Error) => log("error", "job.backend_error", { error: error.name }));
  await boss.start();
  const queues = new Map<string, Promise<void>>();
  const ensureQueue = (name: string) => {
    let created = queues.get(name);
    if (!created) {
      created = boss.getQueue(name).then(async (queue) => {
        if (!queue) await boss.createQueue(name, { name, policy: "short", expireInSeconds: JOB_LEASE_SECONDS });
      });
      queues.set(name, created);
      created.catch(() => queues.delete(name));
    }
    return created;
  };

  return {
    async enqueue(name, data, options) {
      await ensureQueue(name);
      return boss.send(name, data, {
        startAfter: options.startAfter,
        singletonKey: options.singletonKey ?? `${KEYLESS}${crypto.randomUUID()}`,
        retryLimit: options.retryLimit,
        retryDelay: options.retryDelaySeconds,
      });
    },
    async work(name, handler) {
      await ensureQueue(name);
      // pg-boss 10 runs one job at a time per worker: JOB_CONCURRENCY workers poll the queue.
      for (let worker = 0; worker < JOB_CONCURRENCY; worker += 1)
        await boss.work<object>(
          name,
          { pollingIntervalSeconds: POLLING_SECONDS, batchSize: 1, includeMetadata: true },
          async ([job]) => {
            const attempt = job.retryCount + 1;
            try {
              await (handler as JobHandler<object>)(job.data, { id: job.id, attempt });
            } catch (error) {
              log("warn", "job.failed", { job: name, attempt, error: error instanceof Error ? error.name : "Error" });
              throw error;
            }
          },
        );
    },
    async stop() {
      await boss.stop({ graceful: true, timeout: 10_000 });
    },
  };
}
