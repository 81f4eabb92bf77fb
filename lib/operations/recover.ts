import { checkAgainst } from "@/lib/contracts/schema";
import type { Contract } from "@/lib/contracts/types";
import { askStatusTool } from "@/lib/dispatch/status";
import { ToolError, toolErrorCodes, type ExecutionContext, type ToolErrorCode } from "@/lib/executors";
import {
  recordFailure,
  recordSuccess,
  recordUnknown,
  type OperationRow,
  type OutcomeTrail,
  type StoredError,
} from "./service";
import { readStatusAnswer, type StatusReading } from "./status";

// Step 1 of the fixed recovery sequence: ask the service's status tool (through
// the dispatcher, on Guichet's own account) what it recorded under the
// idempotency key, and trust a recorded success only if it also passes the
// write tool's output schema.

export async function askStatus(input: {
  organizationId: string;
  contract: Contract;
  idempotencyKey: string;
  context: ExecutionContext;
}): Promise<StatusReading> {
  const answer = await askStatusTool(input);
  if (!answer.ok) return { kind: "unknown", why: answer.why };
  const { contract } = input;
  const reading = readStatusAnswer(answer.result, contract.mcp?.tool ?? null);
  if (reading.kind === "succeeded") {
    const bad = checkAgainst(contract.output_schema, reading.result, contract.kind === "mcp" ? "lenient" : "strict");
    if (bad)
      return { kind: "unknown", why: `the recorded result breaks the tool's output schema (rule ${bad.schemaPath})` };
  }
  return reading;
}

/** A service's own code: Guichet's when it is one of the tool error codes, otherwise UPSTREAM_ERROR. */
export function asToolErrorCode(code: string): ToolErrorCode {
  return (toolErrorCodes as readonly string[]).includes(code) ? (code as ToolErrorCode) : "UPSTREAM_ERROR";
}

/** A tool error as an operation stores it, with the fixed sequence's trail when there is one. */
export function storedError(error: ToolError, trail?: OutcomeTrail[]): StoredError {
  return {
    code: error.code,
    message: error.message,
    retryable: error.retryable,
    field: error.field,
    ...(error.upstreamCode !== undefined ? { upstream_code: error.upstreamCode } : {}),
    ...(trail ? { trail } : {}),
  };
}

export type StatusSettlement =
  { kind: "succeeded" | "accepted"; operation: OperationRow } | { kind: "failed" | "unknown"; error: ToolError };

/**
 * Steps 2–4 of the fixed sequence, once the status was read: a recorded success is stored (`accepted` for a
 * long write, whose job may still be at work), a recorded refusal is stored as the operation's failure, and
 * anything else leaves the outcome unknown — stored, the run suspended if still active, an operator alerted.
 * `record` wraps each store (the commit retries it while the database is away). The same for a commit that
 * lost its answer (lib/proposals/commit.ts) and for the sweep of operations whose sender died (./sweep.ts).
 */
export async function settleByStatus(
  operation: OperationRow,
  reading: StatusReading,
  trail: OutcomeTrail[],
  options: { longRunning: boolean; record?: <T>(store: () => Promise<T>) => Promise<T> },
): Promise<StatusSettlement> {
  const record = options.record ?? ((store) => store());
  const proposal = operation.proposalId !== null ? { proposal_id: operation.proposalId } : {};
  if (reading.kind === "succeeded") {
    const kind = options.longRunning ? "accepted" : "succeeded";
    return { kind, operation: await record(() => recordSuccess(operation, reading.result, new Date(), kind)) };
  }
  if (reading.kind === "failed") {
    const code = asToolErrorCode(reading.error.code);
    const error = new ToolError(
      code,
      `The service recorded a refusal (${reading.error.code}): ${reading.error.message}`,
      {
        field: reading.error.field,
        ...proposal,
        ...(code === "UPSTREAM_ERROR" ? { upstream_code: reading.error.code } : {}),
      },
    );
    const failed = [
      ...trail,
      { at: new Date().toISOString(), step: "status" as const, outcome: `recorded failure ${reading.error.code}` },
    ];
    await record(() => recordFailure(operation, storedError(error, failed)));
    return { kind: "failed", error };
  }
  const unknown = [...trail, { at: new Date().toISOString(), step: "status" as const, outcome: reading.why }];
  const error = new ToolError(
    "OUTCOME_UNKNOWN",
    `Operation ${operation.id}: whether the service applied the write cannot be established (${reading.why}). The run is suspended if it was still going, and an operator was alerted.`,
    proposal,
  );
  await record(() => recordUnknown(operation, storedError(error, unknown)));
  return { kind: "unknown", error };
}
