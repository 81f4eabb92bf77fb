import { z } from "zod";
import { defineEndpoint } from "@/lib/http/endpoint";
import { ListQuery } from "@/lib/http/validation";
import { isoOffset, isoOffsetOrNull } from "@/lib/time";
import { operationStatuses, type OperationRow, type StoredError } from "./service";

// /v1/operations: what Guichet sent to services under an idempotency key, and
// what became of it. Anyone who may read runs may read them; cancelling is a
// runs:write action; resolving an unknown outcome is for a signed-in operator
// (owner or admin) who checked the service — never an API key.

export const OperationStatus = z.enum(operationStatuses);

export const OperationParams = z.strictObject({ operation: z.string().regex(/^op_[0-9a-z]{26}$/, "must be an operation id (op_…)") });

export const OperationListQuery = ListQuery.extend({
  status: z
    .string()
    .transform((value) => value.split(",").map((s) => s.trim()).filter(Boolean))
    .pipe(z.array(OperationStatus).min(1).max(operationStatuses.length))
    .optional(),
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
  error: z.object({ code: z.string(), message: z.string(), retryable: z.boolean(), field: z.string().nullable(), trail: z.array(TrailObject).optional() }).nullable(),
  resolution: z.object({ by: z.string(), reason: z.string(), at: z.string() }).nullable(),
  created_at: z.string(),
  updated_at: z.string(),
});
export type OperationObject = z.infer<typeof OperationObject>;

export function serializeOperation(row: OperationRow): OperationObject {
  return {
    id: row.id,
    status: OperationStatus.catch("unknown").parse(row.status),
    run: row.runId,
    proposal: row.proposalId,
    tool: row.tool,
    idempotency_key: row.idempotencyKey,
    arguments_sha256: row.argumentsSha256,
    result: (row.result as Record<string, unknown> | null) ?? null,
    error: (row.error as StoredError | null) ?? null,
    resolution: row.resolvedById && row.resolution && row.resolvedAt ? { by: row.resolvedById, reason: row.resolution, at: isoOffset(row.resolvedAt) } : null,
    created_at: isoOffset(row.createdAt),
    updated_at: isoOffsetOrNull(row.updatedAt) ?? isoOffset(row.createdAt),
  };
}

export const ResolveBody = z.strictObject({
  /** What the operator found in the service. */
  outcome: z.enum(["succeeded", "failed"]),
  reason: z.string().trim().min(1, "say what you checked").max(1_000),
});

export const CancelOutcomeObject = z.enum(["stopped", "already_finished", "not_interruptible"]);

const readScopes = ["runs:read"] as const;

export const listOperationsEndpoint = defineEndpoint({
  method: "GET", path: "/v1/operations", tag: "Operations", summary: "Operations sent to services, filtered by status (unknown: awaiting an operator)",
  auth: "both", scopes: [...readScopes], query: OperationListQuery,
  response: z.object({ data: z.array(OperationObject), next_cursor: z.string().nullable() }),
});

export const getOperationEndpoint = defineEndpoint({
  method: "GET", path: "/v1/operations/{operation}", tag: "Operations", summary: "One operation: its finite status and its evidence",
  auth: "both", scopes: [...readScopes], params: OperationParams,
  response: z.object({ data: OperationObject }), errors: ["not_found"],
});

export const cancelOperationEndpoint = defineEndpoint({
  method: "POST", path: "/v1/operations/{operation}/cancel", tag: "Operations",
  summary: "Cancel an operation: says whether it was stopped, had already finished, or cannot be interrupted",
  auth: "both", scopes: ["runs:write"], params: OperationParams,
  response: z.object({ data: OperationObject, outcome: CancelOutcomeObject }), errors: ["not_found"],
});

export const resolveOperationEndpoint = defineEndpoint({
  method: "POST", path: "/v1/operations/{operation}/resolve", tag: "Operations",
  summary: "Resolve an unknown outcome after checking the service (signed-in owner or admin)",
  auth: "session", roles: ["owner", "admin"], params: OperationParams, body: ResolveBody,
  response: z.object({ data: OperationObject }), errors: ["not_found", "operation_not_unknown"],
});
