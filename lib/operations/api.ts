import { MANAGER_ROLES } from "@/lib/auth/scopes";
import { z } from "zod";
import { defineEndpoint } from "@/lib/http/endpoint";
import { isoOffset, isoOffsetOrNull } from "@/lib/time";
import {
  CancelOutcomeObject,
  OperationListQuery,
  OperationObject,
  OperationParams,
  OperationStatus,
  ResolveBody,
} from "./schemas";
import type { OperationRow, StoredError } from "./service";

export * from "./schemas";

// /v1/operations: what Guichet sent to services under an idempotency key, and
// what became of it. Anyone who may read runs may read them; cancelling is a
// runs:write action; resolving an unknown outcome is for a signed-in operator
// (owner or admin) who checked the service — never an API key.

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
    outcome: (row.outcome as Record<string, unknown> | null) ?? null,
    error: (row.error as StoredError | null) ?? null,
    resolution:
      row.resolvedById && row.resolution && row.resolvedAt
        ? { by: row.resolvedById, reason: row.resolution, at: isoOffset(row.resolvedAt) }
        : null,
    created_at: isoOffset(row.createdAt),
    updated_at: isoOffsetOrNull(row.updatedAt) ?? isoOffset(row.createdAt),
  };
}

const readScopes = ["runs:read"] as const;

export const listOperationsEndpoint = defineEndpoint({
  method: "GET",
  path: "/v1/operations",
  tag: "Operations",
  summary: "Operations sent to services, filtered by status (unknown: awaiting an operator)",
  auth: "both",
  scopes: [...readScopes],
  query: OperationListQuery,
  response: z.object({ data: z.array(OperationObject), next_cursor: z.string().nullable() }),
});

export const getOperationEndpoint = defineEndpoint({
  method: "GET",
  path: "/v1/operations/{operation}",
  tag: "Operations",
  summary: "One operation: its status and evidence; a long one still at work is followed at the service",
  auth: "both",
  scopes: [...readScopes],
  params: OperationParams,
  response: z.object({ data: OperationObject }),
  errors: ["not_found"],
});

export const cancelOperationEndpoint = defineEndpoint({
  method: "POST",
  path: "/v1/operations/{operation}/cancel",
  tag: "Operations",
  summary: "Cancel an operation: says whether it was stopped, had already finished, or cannot be interrupted",
  auth: "both",
  scopes: ["runs:write"],
  params: OperationParams,
  response: z.object({ data: OperationObject, outcome: CancelOutcomeObject }),
  errors: ["not_found"],
});

export const resolveOperationEndpoint = defineEndpoint({
  method: "POST",
  path: "/v1/operations/{operation}/resolve",
  tag: "Operations",
  summary: "Resolve an unknown outcome after checking the service (signed-in owner or admin)",
  auth: "session",
  roles: [...MANAGER_ROLES],
  params: OperationParams,
  body: ResolveBody,
  response: z.object({ data: OperationObject }),
  errors: ["not_found", "operation_not_unknown"],
});
