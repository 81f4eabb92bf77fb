import "server-only";
import { randomBytes } from "node:crypto";
import { getToolContract } from "@/lib/contracts/service";
import { db } from "@/lib/db";
import { env } from "@/lib/env";
import { asToolError, toolErrorCodes } from "@/lib/executors";
import { acquireWriteLock, releaseOperationLock, releaseWriteLock } from "@/lib/limits/write-lock";
import { log } from "@/lib/log";
import { serviceContext } from "./long";
import { askStatus } from "./recover";
import {
  recordFailure,
  recordSuccess,
  recordUnknown,
  type OperationRow,
  type OutcomeTrail,
  type StoredError,
} from "./service";

// Operations left `running`: the write was sent (or was about to be) and nobody recorded what the service
// answered — the sender's instance died, or the database went away while it recorded the answer and the
// run ended on the error. A later commit of the same proposal settles such an operation by status, but a run
// that ended, or a client that gave up, never commits it again. This sweep settles them, by the same fixed
// sequence and never by sending the write again: ask the service's status tool under the operation's
// idempotency key; a recorded success is stored (the proposal consumed), a recorded failure is stored, and
// anything else leaves the outcome unknown — the run is suspended if still active, the `operation.unknown`
// webhook and metric alert an operator.
//
// An operation is swept only once it has been `running` longer than GUICHET_OPERATION_STALE_MS (above the
// longest a live sender takes: its tool's timeout, then the status call) and only under its target's write
// lock, which a live sender holds for its whole attempt: the sweep never races a commit in flight.

const BATCH = 20;
/** The lock the sweep holds while it asks the status tool (deadline 30 s) and records the answer. */
const LOCK_TTL_MS = 90_000;

const stamp = () => new Date().toISOString();

function splitTool(tool: string): { key: string; version: number } {
  const at = tool.lastIndexOf("@");
  return { key: tool.slice(0, at), version: Number(tool.slice(at + 1)) };
}

async function lockTargetOf(operation: OperationRow) {
  const proposal = operation.proposalId
    ? await db.proposal.findFirst({
        where: { id: operation.proposalId, organizationId: operation.organizationId },
        select: { id: true, targetType: true, targetId: true },
      })
    : null;
  if (proposal?.targetType && proposal.targetId)
    return { organizationId: operation.organizationId, type: proposal.targetType, id: proposal.targetId };
  return { organizationId: operation.organizationId, type: "proposal", id: operation.proposalId ?? operation.id };
}

export type SweepOutcome = "succeeded" | "accepted" | "failed" | "unknown" | "skipped";

/** Settles one stale operation by the service's status; "skipped" when it moved meanwhile or its target is busy. */
export async function settleStaleOperation(stale: OperationRow): Promise<SweepOutcome> {
  const target = await lockTargetOf(stale);
  // The sender of this very operation is gone (it ran past the bound): a lock its attempt still holds is freed,
  // as a takeover does. Another operation's commit on the same target keeps its lock: tried next round.
  await releaseOperationLock(target, stale.id);
  const holder = `${stale.id}:sweep:${randomBytes(6).toString("hex")}`;
  if (!(await acquireWriteLock(target, holder, LOCK_TTL_MS))) return "skipped";
  try {
    const operation = await db.operation.findFirst({
      where: { id: stale.id, organizationId: stale.organizationId, status: "running" },
    });
    if (!operation) return "skipped";
    const trail: OutcomeTrail[] = [
      { at: stamp(), step: "commit", outcome: "the attempt that sent the write never recorded the service's answer" },
    ];
    const { key, version } = splitTool(operation.tool);
    let reading: Awaited<ReturnType<typeof askStatus>>;
    let longRunning = false;
    try {
      const contract = await getToolContract(operation.organizationId, key, version);
      longRunning = contract.long_running !== undefined;
      reading = await askStatus({
        organizationId: operation.organizationId,
        contract,
        idempotencyKey: operation.idempotencyKey,
        context: await serviceContext(operation),
      });
    } catch (error) {
      // The contract is gone (its server removed) or unreadable: nothing can vouch for the outcome.
      reading = { kind: "unknown", why: `the status could not be asked (${asToolError(error).code})` };
    }
    if (reading.kind === "succeeded") {
      await recordSuccess(operation, reading.result, new Date(), longRunning ? "accepted" : "succeeded");
      return longRunning ? "accepted" : "succeeded";
    }
    if (reading.kind === "failed") {
      const known = (toolErrorCodes as readonly string[]).includes(reading.error.code);
      const error: StoredError = {
        code: known ? reading.error.code : "UPSTREAM_ERROR",
        ...(known ? {} : { upstream_code: reading.error.code }),
        message: `The service recorded a refusal (${reading.error.code}): ${reading.error.message}`,
        retryable: false,
        field: reading.error.field,
        trail: [...trail, { at: stamp(), step: "status", outcome: `recorded failure ${reading.error.code}` }],
      };
      await recordFailure(operation, error);
      return "failed";
    }
    trail.push({ at: stamp(), step: "status", outcome: reading.why });
    await recordUnknown(operation, {
      code: "OUTCOME_UNKNOWN",
      message: `Operation ${operation.id}: whether the service applied the write cannot be established (${reading.why}). An operator was alerted.`,
      retryable: false,
      field: null,
      trail,
    });
    return "unknown";
  } finally {
    await releaseWriteLock(target, holder);
  }
}

/** One pass: the operations `running` for longer than the bound, each settled by status. Answers how many moved. */
export async function sweepStaleOperations(now = new Date()): Promise<number> {
  const stale = await db.operation.findMany({
    where: { status: "running", updatedAt: { lt: new Date(now.getTime() - env.GUICHET_OPERATION_STALE_MS) } },
    orderBy: { updatedAt: "asc" },
    take: BATCH,
  });
  let settled = 0;
  for (const operation of stale) {
    try {
      const outcome = await settleStaleOperation(operation);
      if (outcome === "skipped") continue;
      settled += 1;
      log(outcome === "unknown" ? "warn" : "info", "operation.settled_by_sweep", {
        operation: operation.id,
        run: operation.runId,
        outcome,
      });
    } catch (error) {
      // The database away for a moment: the operation stays running and the next pass tries again.
      log("warn", "operation.sweep_failed", {
        operation: operation.id,
        error: error instanceof Error ? error.name : "unknown",
      });
    }
  }
  return settled;
}
