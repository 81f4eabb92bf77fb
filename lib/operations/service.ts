import "server-only";
import { recordAudit } from "@/lib/audit/record";
import { db, isUniqueViolation, Prisma, type DbOrTx } from "@/lib/db";
import { ApiError, notFound } from "@/lib/http/errors";
import { afterCursor } from "@/lib/http/validation";
import { newId } from "@/lib/ids";
import { parseToolName } from "@/lib/dispatch/arguments";
import { countTelemetry, type TelemetryMetric } from "@/lib/telemetry/service";

// Operations: one per idempotency key, i.e. per (run, proposal, tool). Their
// status is finite and every move is conditional on the status it
// was read in. A success is written together with the proposal's consumption,
// in one transaction; an unknown outcome suspends the run until an operator
// has looked at the service and said what happened.

import { operationStatuses } from "./schemas";
import { recordOperationUnknown } from "@/lib/webhooks/events";
import { noteSettled } from "@/lib/observability/metrics";

export { operationStatuses };
export type OperationStatus = (typeof operationStatuses)[number];
/** Statuses a later attempt with the same key answers from (an accepted long write was sent and taken: never sent again). */
export const settledStatuses: readonly OperationStatus[] = ["accepted", "succeeded", "failed", "cancelled", "unknown"];

export type OperationRow = Prisma.OperationGetPayload<object>;

/** What Guichet knows when the outcome is unknown: each step of the fixed sequence and what it got. */
export interface OutcomeTrail {
  at: string;
  step: "commit" | "status";
  outcome: string;
}

export interface StoredError {
  code: string;
  message: string;
  retryable: boolean;
  field: string | null;
  /** The service's own code of an UPSTREAM_ERROR refusal. */
  upstream_code?: string;
  trail?: OutcomeTrail[];
}

export function asStatus(value: string): OperationStatus {
  return (operationStatuses as readonly string[]).includes(value) ? (value as OperationStatus) : "unknown";
}

/** The operation of this key, created queued if it does not exist yet. */
export async function openOperation(input: {
  organizationId: string;
  runId: string;
  proposalId: string | null;
  tool: string;
  idempotencyKey: string;
  argumentsSha256: string;
}): Promise<OperationRow> {
  const existing = await db.operation.findUnique({ where: { idempotencyKey: input.idempotencyKey } });
  if (existing) return existing;
  try {
    return await db.operation.create({ data: { id: newId("op"), ...input, status: "queued" } });
  } catch (error) {
    if (!isUniqueViolation(error)) throw error;
    return db.operation.findUniqueOrThrow({ where: { idempotencyKey: input.idempotencyKey } });
  }
}

export function findOperationByKey(idempotencyKey: string): Promise<OperationRow | null> {
  return db.operation.findUnique({ where: { idempotencyKey } });
}

/** queued → running; false when someone else moved it first. */
export async function claimOperation(id: string): Promise<boolean> {
  return (await db.operation.updateMany({ where: { id, status: "queued" }, data: { status: "running" } })).count === 1;
}

/**
 * The service committed: the operation succeeds with its evidence and the
 * proposal is consumed, together. A commit sent while the proposal was
 * approved and unexpired consumes it even if the clock ran out during the call:
 * the write happened.
 */
export async function recordSuccess(
  operation: OperationRow,
  result: unknown,
  now = new Date(),
  status: "succeeded" | "accepted" = "succeeded",
): Promise<OperationRow> {
  return db.$transaction(async (tx) => {
    const moved = await tx.operation.updateMany({
      where: { id: operation.id, status: { in: ["queued", "running", "unknown"] } },
      data: { status, result: result as Prisma.InputJsonValue, error: Prisma.DbNull },
    });
    if (moved.count === 0) return tx.operation.findUniqueOrThrow({ where: { id: operation.id } });
    if (operation.proposalId) {
      await tx.proposal.updateMany({
        where: { id: operation.proposalId, status: { in: ["approved", "expired"] } },
        data: { status: "consumed", operationId: operation.id, consumedAt: now },
      });
    }
    return tx.operation.findUniqueOrThrow({ where: { id: operation.id } });
  });
}

/**
 * Conflicts and unknown outcomes are counted here, once, by the move that settles
 * the operation: replaying its answer, or refusing the calls of the run it
 * suspended, is not a new conflict or a new unknown outcome.
 */
async function countSettled(tx: DbOrTx, operation: OperationRow, metric: TelemetryMetric, code: string): Promise<void> {
  // Stored as key@version; a name that does not parse is counted as written, under version 0.
  const parsed = parseToolName(operation.tool);
  const events = [{ metric, tool: parsed?.key ?? operation.tool, version: parsed?.version ?? 0, code }];
  await countTelemetry(operation.organizationId, events, new Date(), tx);
  noteSettled(events);
}

/** A final refusal or failure: nothing was written, the proposal stays unconsumed. */
export async function recordFailure(operation: OperationRow, error: StoredError): Promise<OperationRow> {
  return db.$transaction(async (tx) => {
    const moved = await tx.operation.updateMany({
      where: { id: operation.id, status: { in: ["queued", "running"] } },
      data: { status: "failed", error: error as unknown as Prisma.InputJsonObject },
    });
    if (moved.count === 1 && error.code === "VERSION_CONFLICT")
      await countSettled(tx, operation, "conflict", error.code);
    return tx.operation.findUniqueOrThrow({ where: { id: operation.id } });
  });
}

/** Still unknown after asking the service: the operation waits for an operator, the run is suspended. */
export async function recordUnknown(operation: OperationRow, error: StoredError): Promise<OperationRow> {
  return db.$transaction(async (tx) => {
    const moved = await tx.operation.updateMany({
      where: { id: operation.id, status: { in: ["queued", "running"] } },
      data: { status: "unknown", error: error as unknown as Prisma.InputJsonObject },
    });
    if (moved.count === 1) {
      await countSettled(tx, operation, "unknown_outcome", "OUTCOME_UNKNOWN");
      await recordOperationUnknown(tx, operation);
    }
    await tx.run.updateMany({ where: { id: operation.runId, status: "active" }, data: { status: "suspended" } });
    return tx.operation.findUniqueOrThrow({ where: { id: operation.id } });
  });
}

export type CancelOutcome = "stopped" | "already_finished" | "not_interruptible";

/**
 * POST /v1/operations/{id}/cancel. A queued operation has sent nothing: it is
 * stopped. A running or unknown one was handed to the service, which cannot be
 * asked to forget it: compensation is a separate write with its own proposal.
 */
export async function cancelOperation(
  organizationId: string,
  id: string,
  cancelLong?: (operation: OperationRow) => Promise<{ operation: OperationRow; outcome: CancelOutcome }>,
): Promise<{ operation: OperationRow; outcome: CancelOutcome }> {
  const operation = await getOperation(organizationId, id);
  const status = asStatus(operation.status);
  // A long operation the service still works on: its cancel tool is asked (lib/operations/long.ts).
  if (status === "accepted") return cancelLong ? cancelLong(operation) : { operation, outcome: "not_interruptible" };
  if (status === "queued") {
    const stopped = await db.operation.updateMany({
      where: { id, status: "queued" },
      data: {
        status: "cancelled",
        error: {
          code: "CANCELLED",
          message: "Cancelled before anything was sent to the service.",
          retryable: false,
          field: null,
        },
      },
    });
    if (stopped.count === 1) return { operation: await getOperation(organizationId, id), outcome: "stopped" };
    return cancelOperation(organizationId, id, cancelLong);
  }
  if (status === "running" || status === "unknown") return { operation, outcome: "not_interruptible" };
  return { operation, outcome: "already_finished" };
}

/**
 * An operator's verdict on an unknown outcome, after checking the service:
 * `succeeded` consumes the proposal, `failed` leaves it unconsumed (a new
 * preview supersedes it). The run resumes once none of its operations is unknown.
 */
export async function resolveOperation(
  organizationId: string,
  id: string,
  input: { memberId: string; email?: string; outcome: "succeeded" | "failed"; reason: string },
  now = new Date(),
): Promise<OperationRow> {
  const operation = await getOperation(organizationId, id);
  if (operation.status !== "unknown") {
    throw new ApiError(
      "operation_not_unknown",
      `This operation is ${operation.status}: only an unknown outcome is resolved by an operator.`,
      { reason: { status: operation.status } },
    );
  }
  await db.$transaction(async (tx) => {
    const resolution = { resolvedById: input.memberId, resolution: input.reason, resolvedAt: now };
    const moved = await tx.operation.updateMany({
      where: { id, status: "unknown" },
      data: { status: input.outcome, ...resolution },
    });
    if (moved.count === 0) throw new ApiError("operation_not_unknown", "This operation was resolved meanwhile.");
    await recordAudit(
      {
        organizationId,
        actor: { type: "member", id: input.memberId, label: input.email ?? null },
        action: "operation.resolved",
        target: { type: "operation", id },
        details: { outcome: input.outcome, tool: operation.tool, proposal: operation.proposalId },
      },
      tx,
    );
    if (input.outcome === "succeeded" && operation.proposalId) {
      await tx.proposal.updateMany({
        where: { id: operation.proposalId, status: { in: ["approved", "expired"] } },
        data: { status: "consumed", operationId: id, consumedAt: now },
      });
    }
    const stillUnknown = await tx.operation.count({ where: { runId: operation.runId, status: "unknown" } });
    if (stillUnknown === 0)
      await tx.run.updateMany({ where: { id: operation.runId, status: "suspended" }, data: { status: "active" } });
  });
  return getOperation(organizationId, id);
}

export async function getOperation(organizationId: string, id: string, tx: DbOrTx = db): Promise<OperationRow> {
  const operation = await tx.operation.findFirst({ where: { id, organizationId } });
  if (!operation) throw notFound("Operation");
  return operation;
}

export async function listOperations(
  organizationId: string,
  query: { limit: number; cursor?: string; status?: OperationStatus[]; run?: string },
): Promise<OperationRow[]> {
  return db.operation.findMany({
    where: {
      organizationId,
      ...(query.status?.length ? { status: { in: query.status } } : {}),
      ...(query.run ? { runId: query.run } : {}),
      ...afterCursor(query.cursor),
    },
    orderBy: [{ createdAt: "desc" }, { id: "desc" }],
    take: query.limit + 1,
  });
}

export async function countUnknown(organizationId: string): Promise<number> {
  return db.operation.count({ where: { organizationId, status: "unknown" } });
}
