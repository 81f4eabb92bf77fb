import "server-only";
import type { Contract } from "@/lib/contracts/types";
import { ToolError } from "@/lib/executors";
import { privateOriginsFor } from "@/lib/net/origin-grants";
import type { RunRow } from "@/lib/runs/service";
import { executorFor } from "./availability";
import { validateArguments, operatorSettings, validateOutput } from "./dispatcher";
import { ExecutionFailure, executeUnderContract } from "./execution";

/**
 * The service's preview of a person's revised arguments (POST
 * /v1/proposals/{id}/revise): the preview tool of the proposal's run, checked
 * and executed exactly as a dispatched read is — input schema, engine
 * directives, contract timeout and retry class, output schema, result view —
 * but outside the run's own steps, since the run may be waiting for people.
 * Answers the viewed result or throws the ToolError the call would have had.
 */
export async function previewForRevision(
  run: RunRow,
  preview: Contract,
  args: Record<string, unknown>,
  signal: AbortSignal,
): Promise<unknown> {
  if (preview.effect !== "read") throw new ToolError("INVALID_ARGUMENTS", `${preview.key} is not a preview.`);
  if (!run.agentId) throw new ToolError("CANCELLED", "The agent of this run was deleted.");
  validateArguments(preview, args);
  const executor = await executorFor(run.organizationId, preview, run.memberId);
  const context = operatorSettings(signal, run, run.agentId, await privateOriginsFor(run.organizationId));
  try {
    const outcome = await executeUnderContract(preview, executor, args, context, run.expiresAt);
    return validateOutput(preview, outcome.result);
  } catch (error) {
    if (error instanceof ExecutionFailure) throw error.error;
    throw error;
  }
}
