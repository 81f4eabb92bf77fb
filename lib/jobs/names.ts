// The names of Guichet's jobs, in one place: whoever enqueues one and the
// worker registered in lib/jobs/start.ts agree on it here.
export const JOBS = {
  /** A managed run waiting in requires_approval: its proposals were decided or expired; go on if all were. */
  resumeRun: "run.resume",
  /** Finds runs whose approval wait is over but whose resume job was lost (a crash between decision and enqueue). */
  approvalSweep: "run.approval-sweep",
  /** Claims active managed runs whose instance stopped renewing their lease, and goes on with them. */
  leaseSweep: "run.lease-sweep",
  /** Settles by status the operations left `running` past GUICHET_OPERATION_STALE_MS (lib/operations/sweep.ts). */
  operationSweep: "operation.stale-sweep",
  /** Deletes the transcripts of runs older than GUICHET_RUN_RETENTION_DAYS. */
  runRetention: "run.retention",
  /** Deletes the audit events older than GUICHET_AUDIT_RETENTION_DAYS. */
  auditRetention: "audit.retention",
} as const;
