import type { Contract } from "@/lib/contracts/types";
import { asToolError, ToolError, type ExecutionContext, type Executor } from "@/lib/executors";

// Runs one executor under its contract's rules: a timeout per attempt, never
// past the run's deadline, and retries decided by the contract's retry class —
// not by an HTTP library. Only `safe` reads are repeated, and only on failures
// the executor marked retryable; writes and `never` tools run once. The
// contract's `cancellation` decides whether the caller's signal (the run
// cancelled, an MCP client gone) cuts an attempt in flight: only `abort` tools
// are cut; a call the service has once sent cannot be taken back, so Guichet
// waits for its answer (within the timeout) rather than invent an unknown outcome.

export const MAX_ATTEMPTS = 3;
const BASE_BACKOFF_MS = 100;

export interface ExecutionOutcome {
  result: unknown;
  retries: number;
}

export class ExecutionFailure extends Error {
  constructor(
    readonly error: ToolError,
    readonly retries: number,
  ) {
    super(error.message);
    this.name = "ExecutionFailure";
  }
}

function sleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal.aborted) return reject(new ToolError("CANCELLED", "The tool call was cancelled."));
    const timer = setTimeout(() => {
      signal.removeEventListener("abort", onAbort);
      resolve();
    }, ms);
    const onAbort = () => {
      clearTimeout(timer);
      reject(new ToolError("CANCELLED", "The tool call was cancelled."));
    };
    signal.addEventListener("abort", onAbort, { once: true });
  });
}

/** Whether a cancel reaches a call of this contract in flight (see the header). */
export function cutsInFlight(contract: Pick<Contract, "cancellation">): boolean {
  return contract.cancellation === "abort";
}

/** One attempt, bounded by `timeoutMs` even if the executor ignores its signal. */
async function attempt(
  executor: Executor,
  args: unknown,
  ctx: ExecutionContext,
  timeoutMs: number,
  deadlineIsRun: boolean,
  interruptible: boolean,
): Promise<unknown> {
  const deadline = new AbortController();
  const signal = interruptible ? AbortSignal.any([deadline.signal, ctx.signal]) : deadline.signal;
  let timer: NodeJS.Timeout | undefined;
  const stopped = new Promise<never>((_, reject) => {
    timer = setTimeout(() => deadline.abort(), timeoutMs);
    signal.addEventListener("abort", () => reject(new Error("aborted")), { once: true });
  });
  stopped.catch(() => undefined);
  try {
    return await Promise.race([executor.execute(args, { ...ctx, signal }), stopped]);
  } catch (error) {
    if (deadline.signal.aborted) {
      throw new ToolError(
        "TIMEOUT",
        deadlineIsRun
          ? "The run's deadline passed before the tool answered."
          : `The tool did not answer within ${timeoutMs} ms.`,
        { retryable: !deadlineIsRun },
      );
    }
    if (interruptible && ctx.signal.aborted) throw new ToolError("CANCELLED", "The tool call was cancelled.");
    throw asToolError(error);
  } finally {
    clearTimeout(timer);
  }
}

/** Executes with the contract's timeout and retry class, inside the run's deadline. */
export async function executeUnderContract(
  contract: Contract,
  executor: Executor,
  args: unknown,
  ctx: ExecutionContext,
  runDeadline: Date,
): Promise<ExecutionOutcome> {
  let retries = 0;
  for (;;) {
    const remaining = runDeadline.getTime() - Date.now();
    if (remaining <= 0) throw new ExecutionFailure(new ToolError("TIMEOUT", "The run's deadline has passed."), retries);
    const timeoutMs = Math.min(contract.timeout_ms, remaining);
    try {
      const result = await attempt(
        executor,
        args,
        ctx,
        timeoutMs,
        timeoutMs < contract.timeout_ms,
        cutsInFlight(contract),
      );
      return { result, retries };
    } catch (error) {
      const failure = asToolError(error);
      const backoff = BASE_BACKOFF_MS * 2 ** retries + Math.floor(Math.random() * 50);
      const timeLeft = runDeadline.getTime() - Date.now();
      const again =
        contract.retry === "safe" && failure.retryable && retries + 1 < MAX_ATTEMPTS && timeLeft > backoff + 50;
      if (!again) throw new ExecutionFailure(failure, retries);
      retries++;
      try {
        await sleep(backoff, ctx.signal);
      } catch (cancelled) {
        throw new ExecutionFailure(asToolError(cancelled), retries);
      }
    }
  }
}
