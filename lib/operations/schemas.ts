import { z } from "zod";
import { ListQuery, statusFilter } from "@/lib/http/list-query";

// Operations' zod schemas and types: safe for the browser (no server import).

/** `accepted`: the service took the write and still works on it (a long operation); its job status says when it ends. */
export const operationStatuses = [
  "queued",
  "running",
  "accepted",
  "succeeded",
  "failed",
  "cancelled",
  "unknown",
] as const;

export const OperationStatus = z.enum(operationStatuses);

export const OperationParams = z.strictObject({
  operation: z.string().regex(/^op_[0-9a-z]{26}$/, "must be an operation id (op_…)"),
});

export const OperationListQuery = ListQuery.extend({
  status: statusFilter(operationStatuses).optional(),
  run: z.string().min(1).max(64).optional(),
});

const TrailObject = z.object({ at: z.string(), step: z.enum(["commit", "status"]), outcome: z.string() });

export const OperationObject = z.object({
  id: z.string(),
  status: OperationStatus,
  run: z.string(),
  proposal: z.string().nullable(),
  tool: z.string(),
  idempotency_key: z.string(),
  arguments_sha256: z.string(),
  /** The service's evidence of a success: {operation_id, <resource>_id, previous_version, new_version, changed_fields, committed_at}. */
  result: z.record(z.string(), z.unknown()).nullable(),
  /** A long operation's final state, as the service's job status reported it (null until it ends). */
  outcome: z.record(z.string(), z.unknown()).nullable(),
  error: z
    .object({
      code: z.string(),
      message: z.string(),
      retryable: z.boolean(),
      field: z.string().nullable(),
      upstream_code: z.string().max(60).optional(),
      trail: z.array(TrailObject).optional(),
    })
    .nullable(),
  resolution: z.object({ by: z.string(), reason: z.string(), at: z.string() }).nullable(),
  created_at: z.string(),
  updated_at: z.string(),
});
export type OperationObject = z.infer<typeof OperationObject>;

export const ResolveBody = z.strictObject({
  /** What the operator found in the service. */
  outcome: z.enum(["succeeded", "failed"]),
  reason: z.string().trim().min(1, "say what you checked").max(1_000),
});

export const CancelOutcomeObject = z.enum(["stopped", "already_finished", "not_interruptible"]);
