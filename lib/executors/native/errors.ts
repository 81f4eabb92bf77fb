// The failures a native executor may report; the dispatcher turns them into
// the tool envelope `{ok: false, error: {code, message, retryable, field}}`.

export type ToolFailureCode = "TIMEOUT" | "UPSTREAM_ERROR" | "INVALID_ARGUMENTS" | "TOOL_UNAVAILABLE" | "CANCELLED";

export class ToolFailure extends Error {
  readonly code: ToolFailureCode;
  readonly retryable: boolean;
  /** JSON pointer into the arguments, for INVALID_ARGUMENTS. */
  readonly field?: string;

  constructor(code: ToolFailureCode, message: string, options: { retryable?: boolean; field?: string } = {}) {
    super(message);
    this.name = "ToolFailure";
    this.code = code;
    this.retryable = options.retryable ?? false;
    if (options.field !== undefined) this.field = options.field;
  }
}

/** Throws CANCELLED when the run or the call was cancelled before the work starts. */
export function throwIfCancelled(signal: AbortSignal): void {
  if (signal.aborted) throw new ToolFailure("CANCELLED", "The tool call was cancelled.");
}
