import { checkAgainst } from "@/lib/contracts/schema";
import { getToolContract } from "@/lib/contracts/service";
import type { Contract } from "@/lib/contracts/types";
import { executorFor } from "@/lib/dispatch/availability";
import { ExecutionFailure, executeUnderContract } from "@/lib/dispatch/execution";
import { asToolError, type ExecutionContext } from "@/lib/executors";
import { readStatusAnswer, type StatusReading } from "./status";

// Step 1 of the fixed recovery sequence: ask the service's status tool what it
// recorded under the idempotency key. Guichet asks on its own account (the
// status tool need not be in the run), with a deadline of its own, and trusts
// only an answer that passes the status tool's output schema and — for a
// success — the write tool's output schema.

const STATUS_DEADLINE_MS = 30_000;

export async function askStatus(input: { organizationId: string; contract: Contract; idempotencyKey: string; context: ExecutionContext }): Promise<StatusReading> {
  const { contract } = input;
  if (!contract.status_tool || !contract.idempotency) return { kind: "unknown", why: "the tool has no status tool to ask" };
  let statusContract: Contract;
  try {
    // The status tool need not be in the run: its reviewed contract is published on first use, as for any tool.
    statusContract = await getToolContract(input.organizationId, contract.status_tool, undefined);
  } catch {
    return { kind: "unknown", why: "the status tool has no reviewed contract" };
  }
  let result: unknown;
  try {
    const executor = await executorFor(input.organizationId, statusContract);
    // Not the run's signal: a cancelled run still deserves the truth about a write it sent.
    const context = { ...input.context, signal: AbortSignal.timeout(STATUS_DEADLINE_MS) };
    const deadline = new Date(Date.now() + STATUS_DEADLINE_MS);
    result = (await executeUnderContract(statusContract, executor, { [contract.idempotency.key_field]: input.idempotencyKey }, context, deadline)).result;
  } catch (error) {
    const failure = error instanceof ExecutionFailure ? error.error : asToolError(error);
    return { kind: "unknown", why: `the status tool failed (${failure.code}: ${failure.message})` };
  }
  const mode = statusContract.kind === "mcp" ? "lenient" : "strict";
  const broken = checkAgainst(statusContract.output_schema, result, mode);
  if (broken) return { kind: "unknown", why: `the status answer breaks its output schema (rule ${broken.schemaPath})` };
  const reading = readStatusAnswer(result, contract.mcp?.tool ?? null);
  if (reading.kind === "succeeded") {
    const bad = checkAgainst(contract.output_schema, reading.result, contract.kind === "mcp" ? "lenient" : "strict");
    if (bad) return { kind: "unknown", why: `the recorded result breaks the tool's output schema (rule ${bad.schemaPath})` };
  }
  return reading;
}
