import type { Contract, JsonSchema } from "@/lib/contracts/types";
import type { ExecutionContext, Executor } from "@/lib/executors";
import type { OperationView } from "@/lib/executors/operations/tools";
import type { RunDriver } from "@/lib/runs/driver";
import type { RunRow } from "@/lib/runs/model";

// The dispatcher's write path: where a validated call to a `write` tool goes
// instead of its executor. The dispatcher defines what it needs here and
// knows nothing of who provides it; the proposals engine implements it
// (turning the call into a canonical proposal, or — for a commit given a
// proposal_id — checking the approval and running the write with
// `executeUnderContract` under the target's write lock) and registers itself
// where tool calls enter (lib/proposals/dispatch.ts). Without a registered
// write path every write is refused, never executed directly.

export interface WriteCall {
  run: { id: string; organizationId: string; agentId: string; capabilities: "read" | "read_write" };
  /** Who made the call (the run's opener, checked before): the proposal asks in their name. */
  driver: RunDriver;
  contract: Contract;
  /** Already validated against `argumentsSchemaFor`: `{proposal_id}` or candidate arguments. */
  arguments: unknown;
  argumentsSha256: string;
  stepId: string;
  /** The tool's executor, to run with `executeUnderContract` (./execution.ts) once the write is approved. */
  executor: Executor;
  /** The context the write would execute with (signal, run scope, operator settings). */
  context: ExecutionContext;
  runDeadline: Date;
}

/** What the write path hands back on success: a result the dispatcher validates and views like any other. */
export interface WriteOutcome {
  result: unknown;
  retries: number;
  /** Added to the envelope's evidence: the operation and proposal of a commit. */
  evidence?: Record<string, unknown>;
}

export interface WritePath {
  /** A validated call to a write tool: commit an approved proposal, or make one and say what it waits for. */
  handleWriteCall(call: WriteCall): Promise<WriteOutcome>;
  /**
   * Called after every successful read, with its validated and viewed result
   * (where a preview turns into a proposal). What it returns is added to the
   * envelope's evidence. `driver` made the call: a proposal asks in their name;
   * `stepId` is the step the call is recorded as (the policy decision names it).
   */
  afterRead(
    run: RunRow,
    contract: Contract,
    result: unknown,
    driver: RunDriver,
    stepId: string,
  ): Promise<Record<string, unknown> | undefined>;
  /** The schema a write's arguments are validated against before the policy step (a commit tool takes only `{proposal_id}`). */
  writeArgumentsSchema(contract: Contract): JsonSchema;
  /** get_operation: where a long operation its writes started stands now (this run's operations only). */
  followOperation(
    runId: string,
    organizationId: string,
    operationId: string,
    context: ExecutionContext,
  ): Promise<OperationView>;
}

let registered: WritePath | null = null;

export function registerWritePath(path: WritePath): void {
  registered = path;
}

export function writePath(): WritePath {
  if (!registered)
    throw new Error("No write path is registered: tool calls must enter through lib/proposals/dispatch.ts.");
  return registered;
}

/** A read is validated against its contract's input schema; a write's accepted shape is the write path's to narrow. */
export function argumentsSchemaFor(contract: Contract): JsonSchema {
  return contract.effect === "write" ? writePath().writeArgumentsSchema(contract) : contract.input_schema;
}
