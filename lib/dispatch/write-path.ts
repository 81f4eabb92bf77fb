import type { Contract } from "@/lib/contracts/types";
import { ToolError, type ExecutionContext, type Executor } from "@/lib/executors";

// The dispatcher's write path: where a validated call to a `write` tool goes
// instead of its executor. This is the seam the proposals engine plugs into
// (SPEC §6): it turns the call into a canonical proposal, or — for a commit
// tool given a proposal_id — checks the approval and runs the write with
// `executeUnderContract` (lib/dispatch/execution.ts), under the target's write lock.
//
// Until that engine exists, every write answers APPROVAL_REQUIRED and nothing
// is executed: no request reaches the service.

export interface WriteCall {
  run: { id: string; organizationId: string; agentId: string; capabilities: "read" | "read_write" };
  contract: Contract;
  /** Already validated against contract.input_schema. */
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
}

export async function handleWriteCall(call: WriteCall): Promise<WriteOutcome> {
  throw new ToolError("APPROVAL_REQUIRED", `${call.contract.key}@${call.contract.version} changes data: it runs only through a proposal a person approves, and proposals are not enabled yet. Nothing was executed.`, { proposal_id: null });
}
