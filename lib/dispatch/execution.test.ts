import { describe, expect, it } from "vitest";
import { currentBuiltinContract } from "@/lib/contracts/builtin";
import type { Contract } from "@/lib/contracts/types";
import { ToolError, type ExecutionContext, type Executor } from "@/lib/executors";
import { ExecutionFailure, executeUnderContract, MAX_ATTEMPTS } from "./execution";

// The executor here is a stand-in upstream that fails on cue; what is under
// test is the contract's retry class, timeout and the run's deadline.

const base = currentBuiltinContract("calculate")!;
const contract = (over: Partial<Contract>): Contract => ({ ...base, ...over });

function context(signal = new AbortController().signal): ExecutionContext {
  return {
    signal,
    run: { organizationId: "org", runId: "run", agentId: "agt", fileIds: [], memberId: null },
    dataDir: "/tmp",
    web: {},
    search: {},
    privateOrigins: [],
  };
}

function flaky(failures: number, failure: () => Error): Executor & { calls: number } {
  const executor = {
    calls: 0,
    async execute() {
      executor.calls++;
      if (executor.calls <= failures) throw failure();
      return { ok: executor.calls };
    },
  };
  return executor;
}

const inAMinute = () => new Date(Date.now() + 60_000);
const transient = () => new ToolError("UPSTREAM_ERROR", "503", { retryable: true });

async function failureOf(promise: Promise<unknown>): Promise<ExecutionFailure> {
  try {
    await promise;
  } catch (error) {
    if (error instanceof ExecutionFailure) return error;
    throw error;
  }
  throw new Error("expected a failure");
}

describe("executeUnderContract", () => {
  it("retries a safe read on transient failures, with backoff, up to the attempt limit", async () => {
    const twice = flaky(2, transient);
    await expect(executeUnderContract(contract({ retry: "safe" }), twice, {}, context(), inAMinute())).resolves.toEqual(
      { result: { ok: 3 }, retries: 2 },
    );
    const always = flaky(99, transient);
    const failure = await failureOf(
      executeUnderContract(contract({ retry: "safe" }), always, {}, context(), inAMinute()),
    );
    expect(always.calls).toBe(MAX_ATTEMPTS);
    expect(failure).toMatchObject({ retries: MAX_ATTEMPTS - 1, error: { code: "UPSTREAM_ERROR" } });
  });

  it.each(["idempotent", "never"] as const)("never repeats a %s tool, even on a retryable failure", async (retry) => {
    const executor = flaky(1, transient);
    const failure = await failureOf(executeUnderContract(contract({ retry }), executor, {}, context(), inAMinute()));
    expect(executor.calls).toBe(1);
    expect(failure.retries).toBe(0);
  });

  it("does not repeat a failure the executor did not mark retryable", async () => {
    const executor = flaky(1, () => new ToolError("INVALID_ARGUMENTS", "bad", { field: "/x" }));
    const failure = await failureOf(
      executeUnderContract(contract({ retry: "safe" }), executor, {}, context(), inAMinute()),
    );
    expect(executor.calls).toBe(1);
    expect(failure.error).toMatchObject({ code: "INVALID_ARGUMENTS", field: "/x" });
  });

  it("answers TIMEOUT when the executor outlives the contract's timeout, even if it ignores its signal", async () => {
    const hanging: Executor = { execute: () => new Promise(() => undefined) };
    const failure = await failureOf(
      executeUnderContract(contract({ retry: "never", timeout_ms: 50 }), hanging, {}, context(), inAMinute()),
    );
    expect(failure.error).toMatchObject({ code: "TIMEOUT", retryable: true });
  });

  it("never runs past the run's deadline, retries included", async () => {
    const hanging: Executor = { execute: () => new Promise(() => undefined) };
    const started = Date.now();
    const failure = await failureOf(
      executeUnderContract(
        contract({ retry: "safe", timeout_ms: 5_000 }),
        hanging,
        {},
        context(),
        new Date(Date.now() + 80),
      ),
    );
    expect(failure.error).toMatchObject({ code: "TIMEOUT", retryable: false });
    expect(failure.retries).toBe(0);
    expect(Date.now() - started).toBeLessThan(2_000);
    await expect(
      failureOf(executeUnderContract(contract({}), hanging, {}, context(), new Date(Date.now() - 1))),
    ).resolves.toMatchObject({ error: { code: "TIMEOUT" } });
  });

  it("stops with CANCELLED when the run is cancelled during the call", async () => {
    const controller = new AbortController();
    const hanging: Executor = { execute: () => new Promise(() => undefined) };
    setTimeout(() => controller.abort(), 20);
    const failure = await failureOf(
      executeUnderContract(contract({ timeout_ms: 5_000 }), hanging, {}, context(controller.signal), inAMinute()),
    );
    expect(failure.error.code).toBe("CANCELLED");
  });

  it("lets a call declared not interruptible run to its answer when the run is cancelled", async () => {
    for (const cancellation of ["not_interruptible", "cancel_tool"] as const) {
      const controller = new AbortController();
      let seen: AbortSignal | undefined;
      const slow: Executor = {
        execute: (_args, ctx) => {
          seen = ctx.signal;
          return new Promise((resolve) => setTimeout(() => resolve({ sent: true }), 80));
        },
      };
      setTimeout(() => controller.abort(), 20);
      const outcome = await executeUnderContract(
        contract({ effect: "write", retry: "idempotent", cancellation, timeout_ms: 5_000 }),
        slow,
        {},
        context(controller.signal),
        inAMinute(),
      );
      expect({ cancellation, outcome }).toEqual({ cancellation, outcome: { result: { sent: true }, retries: 0 } });
      // The executor never saw the run's cancel: its request to the service was not cut.
      expect(controller.signal.aborted).toBe(true);
      expect(seen!.aborted).toBe(false);
    }
  });

  it("still bounds a call declared not interruptible by its timeout", async () => {
    const hanging: Executor = { execute: () => new Promise(() => undefined) };
    const failure = await failureOf(
      executeUnderContract(
        contract({ effect: "write", retry: "idempotent", cancellation: "not_interruptible", timeout_ms: 50 }),
        hanging,
        {},
        context(AbortSignal.abort()),
        inAMinute(),
      ),
    );
    expect(failure.error.code).toBe("TIMEOUT");
  });

  it("hides the text of an unexpected exception", async () => {
    const buggy: Executor = {
      execute: async () => {
        throw new Error("SELECT * FROM secrets failed at /srv/app.js:12");
      },
    };
    const failure = await failureOf(
      executeUnderContract(contract({ retry: "never" }), buggy, {}, context(), inAMinute()),
    );
    expect(failure.error).toMatchObject({ code: "UPSTREAM_ERROR", message: "The tool failed unexpectedly." });
  });
});
