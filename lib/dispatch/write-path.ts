import type { Contract, JsonSchema } from "@/lib/contracts/types";
import type { ExecutionContext, Executor } from "@/lib/executors";
import type { RunRow } from "@/lib/runs/model";
import { proposalFromPreview, proposalWritePath } from "@/lib/proposals/write-path";
import { writeCallSchema } from "@/lib/proposals/write-schema";

// The dispatcher's write path: where a validated call to a `write` tool goes
// instead of its executor. This is the seam the proposals engine plugs into:
// it turns the call into a canonical proposal, or — for a commit
// tool given a proposal_id — checks the approval and runs the write with
// `executeUnderContract` (lib/dispatch/execution.ts), under the target's write lock.
//
// The engine lives in lib/proposals (issue 6): this seam only hands the call over.

export interface WriteCall {
  run: { id: string; organizationId: string; agentId: string; capabilities: "read" | "read_write" };
  contract: Contract;
  /** Already validated against the write call schema: `{proposal_id}` or candidate arguments (lib/proposals/write-schema.ts). */
  arguments: unknown;
  argumentsSha256: string;
  stepId: string;
  /** The tool's executor, to run with `executeUnderContract` (lib/dispatch/execution.ts) once the write is approved. */
  executor: Executor;
  /** The context the write would execute with (signal, run scope, operator settings). */
  context: ExecutionContext;
  runDeadline: Date;
}

/** What the write path hands back on success: a result the dispatcher validates and views like any other. */
export interface WriteOutcome {
  result: unknown;
  retries: number;
  /** Added to the envelope's evidence by the proposals engine: the operation and proposal of a commit. */
  evidence?: Record<string, unknown>;
}

export async function handleWriteCall(call: WriteCall): Promise<WriteOutcome> {
  return proposalWritePath(call);
}

/**
 * Called after every successful read, with its validated and viewed result:
 * where a preview turns into a canonical proposal. What it returns is added to
 * the envelope's evidence (lib/proposals: `{proposal: {...}}` for a preview of a
 * write in the run, nothing otherwise).
 */
export async function afterRead(run: RunRow, contract: Contract, result: unknown): Promise<Record<string, unknown> | undefined> {
  return proposalFromPreview(run, contract, result);
}

/**
 * The schema a call's arguments are validated against before the policy step.
 * A read is validated against its contract's input schema; a write's accepted
 * shape is the proposals engine's to narrow (a commit tool takes only
 * `{proposal_id}`), so it answers here.
 */
export function argumentsSchemaFor(contract: Contract): JsonSchema {
  return contract.effect === "write" ? writeCallSchema(contract) : contract.input_schema;
}
