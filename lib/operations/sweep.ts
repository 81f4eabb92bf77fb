import "server-only";
import { randomBytes } from "node:crypto";
import { db } from "@/lib/db";
import { env } from "@/lib/env";
import { asToolError } from "@/lib/executors";
import { acquireWriteLock, releaseOperationLock, releaseWriteLock } from "@/lib/limits/write-lock";
import { log } from "@/lib/log";
import { contractOf, serviceContext } from "./long";
import { askStatus, settleByStatus } from "./recover";
import type { OperationRow, OutcomeTrail } from "./service";

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
    let reading: Awaited<ReturnType<typeof askStatus>>;
    let longRunning = false;
    try {
      const contract = await contractOf(operation);
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
    return (await settleByStatus(operation, reading, trail, { longRunning })).kind;
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
