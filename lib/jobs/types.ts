// The job interface every background task goes through, whatever runs it:
// pg-boss on PostgreSQL, the embedded runner on SQLite (lib/jobs/index.ts picks).

export interface EnqueueOptions {
  /** Not before this moment (default: now). */
  startAfter?: Date;
  /**
   * At most one job with this key waits to start in the queue: enqueueing another while one waits does
   * nothing and answers null. A job that already started does not count, so work that arrives while
   * it runs still gets its own run afterwards.
   */
  singletonKey?: string;
  /** Retries after a failed attempt (a thrown handler). Default 3. */
  retryLimit?: number;
  /** Seconds between a failed attempt and the next one. Default 5. */
  retryDelaySeconds?: number;
}

export interface JobInfo {
  id: string;
  /** 1 for the first attempt. */
  attempt: number;
}

/** Work for one job. Throwing fails the attempt (retried within the job's limit); returning completes it. */
export type JobHandler<T extends object = Record<string, unknown>> = (data: T, job: JobInfo) => Promise<void>;

/** Where jobs are stored and who runs them. One per process (see index.ts), more in tests. */
export interface JobBackend {
  /** The new job's id, or null when a job with the same singleton key already waits. */
  enqueue(
    name: string,
    data: object,
    options: Required<Omit<EnqueueOptions, "singletonKey">> & { singletonKey: string | null },
  ): Promise<string | null>;
  /** Starts running the queue's jobs in this process. */
  work(name: string, handler: JobHandler<never>): Promise<void>;
  /** Stops taking jobs and waits (bounded) for those that run. */
  stop(): Promise<void>;
}

export const JOB_DEFAULTS = { retryLimit: 3, retryDelaySeconds: 5 } as const;
/** A started job that has not finished after this long is taken to be lost with its process, and retried. */
export const JOB_LEASE_SECONDS = 15 * 60;
/** Jobs one process runs at the same time. */
export const JOB_CONCURRENCY = 4;
