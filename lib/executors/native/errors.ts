import { ToolError } from "../errors";

/** Throws CANCELLED when the run or the call was cancelled before the work starts. */
export function throwIfCancelled(signal: AbortSignal): void {
  if (signal.aborted) throw new ToolError("CANCELLED", "The tool call was cancelled.");
}
