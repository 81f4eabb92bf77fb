import { notFound } from "./errors";
import { newId, runIdempotent } from "./idempotency";
import type { Store } from "./store";

// A long write: suspending every invoice of a customer is accepted at once and
// done by a job that finishes later. The caller gets the job's id, polls
// get_job_status until a final state, and may cancel it while it runs. The job
// finishes on the first status read once its duration has passed (no timers:
// the state moves when someone looks), unless the `hold_jobs` fault keeps it
// running.

export const JOB_DURATION_MS = 1_500;

export type JobStatus = "running" | "succeeded" | "failed" | "cancelled";

export interface Job {
  job_id: string;
  operation_id: string;
  customer_id: string;
  status: JobStatus;
  accepted_at: string;
  finished_at: string | null;
  result: { suspended_count: number } | null;
}

interface JobRow {
  job_id: string;
  operation_id: string;
  customer_id: string;
  status: JobStatus;
  accepted_at: string;
  finish_after: string;
  finished_at: string | null;
  result: string | null;
}

export const JOBS_SCHEMA = `
CREATE TABLE IF NOT EXISTS jobs (
  job_id TEXT PRIMARY KEY, operation_id TEXT NOT NULL, customer_id TEXT NOT NULL,
  status TEXT NOT NULL CHECK (status IN ('running', 'succeeded', 'failed', 'cancelled')),
  accepted_at TEXT NOT NULL, finish_after TEXT NOT NULL, finished_at TEXT, result TEXT);
`;

function toJob(row: JobRow): Job {
  return {
    job_id: row.job_id,
    operation_id: row.operation_id,
    customer_id: row.customer_id,
    status: row.status,
    accepted_at: row.accepted_at,
    finished_at: row.finished_at,
    result: row.result === null ? null : (JSON.parse(row.result) as Job["result"]),
  };
}

export interface SuspendAllArgs {
  customer_id: string;
  idempotency_key: string;
}

export function suspendAllInvoiceDelivery(store: Store, args: SuspendAllArgs) {
  return runIdempotent(
    store,
    "suspend_all_invoice_delivery",
    args.idempotency_key,
    { customer_id: args.customer_id },
    (operationId, now) => {
      if (!store.getCustomer(args.customer_id)) throw notFound("Customer", args.customer_id, "/customer_id");
      const jobId = newId("job_");
      const finishAfter = new Date(Date.parse(now) + JOB_DURATION_MS).toISOString();
      store.db
        .prepare(
          `INSERT INTO jobs (job_id, operation_id, customer_id, status, accepted_at, finish_after) VALUES (?, ?, ?, 'running', ?, ?)`,
        )
        .run(jobId, operationId, args.customer_id, now, finishAfter);
      return {
        operation_id: operationId,
        job_id: jobId,
        customer_id: args.customer_id,
        status: "running",
        accepted_at: now,
      };
    },
  );
}

/** The job as it stands now: a running job whose time has come does its work first (one transaction). */
export function readJob(store: Store, jobId: string, holdJobs: boolean): Job | null {
  return store.db
    .transaction((): Job | null => {
      const row = store.db.prepare(`SELECT * FROM jobs WHERE job_id = ?`).get(jobId) as JobRow | undefined;
      if (!row) return null;
      const now = new Date().toISOString();
      if (row.status !== "running" || holdJobs || now < row.finish_after) return toJob(row);
      const suspended = store.db
        .prepare(
          `UPDATE invoices SET delivery_suspended = 1, suspended_at = ?, suspended_by = ? WHERE customer_id = ? AND delivery_suspended = 0`,
        )
        .run(now, row.operation_id, row.customer_id).changes;
      store.db
        .prepare(`UPDATE jobs SET status = 'succeeded', finished_at = ?, result = ? WHERE job_id = ?`)
        .run(now, JSON.stringify({ suspended_count: suspended }), jobId);
      return toJob(store.db.prepare(`SELECT * FROM jobs WHERE job_id = ?`).get(jobId) as JobRow);
    })
    .immediate();
}

export function jobStatus(store: Store, jobId: string, holdJobs: boolean) {
  const job = readJob(store, jobId, holdJobs);
  if (!job) throw notFound("Job", jobId, "/job_id");
  return { job_id: job.job_id, status: job.status, result: job.result, finished_at: job.finished_at };
}

export interface CancelJobArgs {
  job_id: string;
  idempotency_key: string;
}

/** Stops a running job before it does its work; a finished one is reported as such, unchanged. */
export function cancelJob(store: Store, args: CancelJobArgs, holdJobs: boolean) {
  // Bring the job up to date first: a job whose time has passed has already done its work.
  readJob(store, args.job_id, holdJobs);
  return runIdempotent(store, "cancel_job", args.idempotency_key, { job_id: args.job_id }, (operationId, now) => {
    const row = store.db.prepare(`SELECT * FROM jobs WHERE job_id = ?`).get(args.job_id) as JobRow | undefined;
    if (!row) throw notFound("Job", args.job_id, "/job_id");
    if (row.status !== "running")
      return { operation_id: operationId, job_id: row.job_id, outcome: "already_finished", status: row.status };
    store.db.prepare(`UPDATE jobs SET status = 'cancelled', finished_at = ? WHERE job_id = ?`).run(now, row.job_id);
    return { operation_id: operationId, job_id: row.job_id, outcome: "cancelled", status: "cancelled" };
  });
}

export function allJobs(store: Store): Job[] {
  return (store.db.prepare(`SELECT * FROM jobs ORDER BY accepted_at, job_id`).all() as JobRow[]).map(toJob);
}
