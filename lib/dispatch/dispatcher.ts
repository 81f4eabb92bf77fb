import { performance } from "node:perf_hooks";
import { applyResultView } from "@/lib/contracts/result-view";
import { findContract, isRegisteredKey } from "@/lib/contracts/registry";
import { checkAgainst } from "@/lib/contracts/schema";
import { isTraced, traceCall } from "@/lib/traces/record";
import type { Contract } from "@/lib/contracts/types";
import { env } from "@/lib/env";
import { privateOriginsFor } from "@/lib/net/origin-grants";
import { asToolError, ToolError, type ExecutionContext } from "@/lib/executors";
import type { ToolErrorReason } from "@/lib/executors/errors";
import { newId } from "@/lib/ids";
import { nestsDeeperThan } from "@/lib/json/deep";
import { takeCallSlot } from "@/lib/limits/calls";
import { trackCall } from "@/lib/runs/active-calls";
import { assertDrives, type RunDriver } from "@/lib/runs/driver";
import { runMayHold, type RunCapabilities } from "@/lib/runs/capability-rule";
import { capabilitySetOf, effectiveStatus, fileIdsOf, getRun, type RunRow } from "@/lib/runs/service";
import {
  argumentBytes,
  argumentsSha256,
  MAX_ARGUMENT_BYTES,
  MAX_ARGUMENT_DEPTH,
  parseToolName,
  redactArguments,
} from "./arguments";
import { executorFor, searchSettings } from "./availability";
import { findEngineDirective } from "./directives";
import { cutsInFlight, ExecutionFailure, executeUnderContract } from "./execution";
import { recordCall } from "./record";
import { noteRateLimited } from "@/lib/observability/metrics";
import { inToolSpan } from "@/lib/observability/spans";
import { argumentsSchemaFor, writePath, type WriteOutcome } from "./write-path";

// The dispatcher: the only way a tool executes. In this order — run state and
// limits, parse, size, exact registry lookup, the run's capability set, input
// schema, engine directives, policy (the write path), execution under the
// contract (timeout, retry class, run deadline), output schema, result view —
// then one step and its telemetry, whatever the outcome.

export interface ToolEnvelopeError {
  code: ToolError["code"];
  message: string;
  retryable: boolean;
  field: string | null;
  retry_after_ms?: number;
  proposal_id?: string | null;
  upstream_code?: string;
  reason?: ToolErrorReason;
}

export interface ToolEvidence {
  run: string;
  step: string;
  tool: string;
  effect: "read" | "write";
  duration_ms: number;
  arguments_sha256: string;
  retries: number;
  /** Tool output is someone else's data: never instructions for the engine. */
  untrusted: true;
}

export type ToolEnvelope =
  | { ok: true; result: unknown; evidence: ToolEvidence & Record<string, unknown> }
  | { ok: false; error: ToolEnvelopeError };

export interface ToolCallRequest {
  organizationId: string;
  runId: string;
  tool: string;
  arguments: unknown;
  /**
   * Who makes the call: the request's principal, or the run's opener when Guichet
   * moves the run on itself. Anyone but the opener is refused (`run_not_yours`)
   * before a step is recorded.
   */
  driver: RunDriver;
  /** The caller gave up (an MCP client's notifications/cancelled): the call stops as when its run is cancelled. */
  signal?: AbortSignal;
  /** The run as this same request already read it (an MCP session's lookup), to save reading it again; used only if it is `runId` of `organizationId`. */
  run?: RunRow;
}

interface CallState {
  run?: RunRow;
  contract?: Contract;
  retries: number;
}

/** `privateOrigins`: the origins granted to the run's organization (lib/net/origin-grants.ts). */
export function operatorSettings(
  signal: AbortSignal,
  run: RunRow,
  agentId: string,
  privateOrigins: readonly string[],
): ExecutionContext {
  return {
    // get_operation reads this run's operations only.
    operations: {
      follow: (operationId, ctx) => writePath().followOperation(run.id, run.organizationId, operationId, ctx),
    },
    signal,
    run: {
      organizationId: run.organizationId,
      runId: run.id,
      agentId,
      fileIds: fileIdsOf(run),
      memberId: run.memberId,
    },
    dataDir: env.dataDir,
    // web_fetch gets no allowlist: its URL is the model's choice, public only.
    web: {},
    search: searchSettings(privateOrigins),
    privateOrigins,
  };
}

/** Refusals that depend only on the run: its agent, its state and its limits. Answers the agent the call is made for. */
async function admitCall(run: RunRow): Promise<string> {
  // A deleted agent's run is kept as the record of what it did, but it ended with its agent:
  // the code of a finished run (as cancelled or expired), whatever its stored status says.
  if (run.agentId === null)
    throw new ToolError(
      "CANCELLED",
      "The agent of this run was deleted: the run is kept as a record and accepts no more tool calls.",
    );
  const status = effectiveStatus(run);
  if (status === "suspended")
    throw new ToolError("OUTCOME_UNKNOWN", "The run is suspended until an operator resolves an unknown outcome.");
  if (status !== "active") throw new ToolError("CANCELLED", `The run is ${status}: it accepts no more tool calls.`);
  const refusal = await takeCallSlot(run.organizationId, run.id);
  if (refusal) {
    noteRateLimited(refusal.scope === "run" ? "run" : "organization");
    throw new ToolError(
      "RATE_LIMITED",
      `Too many tool calls for this ${refusal.scope === "run" ? "run" : "organization"}; retry in ${Math.ceil(refusal.retryAfterMs / 1000)} s.`,
      { retryable: true, retry_after_ms: refusal.retryAfterMs },
    );
  }
  return run.agentId;
}

/** Parse, size, registry, capability set: the contract this call may use, or the refusal. */
async function resolveCall(run: RunRow, toolName: string, args: unknown): Promise<Contract> {
  const parsed = parseToolName(toolName);
  if (!parsed) throw new ToolError("UNKNOWN_TOOL", "This is not a tool name: a key, optionally followed by @version.");
  if (nestsDeeperThan(args, MAX_ARGUMENT_DEPTH))
    throw new ToolError(
      "ARGUMENTS_TOO_LARGE",
      `Arguments may nest arrays and objects ${MAX_ARGUMENT_DEPTH} levels deep at most.`,
    );
  const bytes = argumentBytes(args);
  if (bytes > MAX_ARGUMENT_BYTES)
    throw new ToolError("ARGUMENTS_TOO_LARGE", `Arguments are limited to ${MAX_ARGUMENT_BYTES} bytes.`);
  const granted = capabilitySetOf(run).find((entry) => entry.key === parsed.key);
  // A key the run froze was registered then; only other keys need the registry's answer.
  if (!granted && !(await isRegisteredKey(run.organizationId, parsed.key)))
    throw new ToolError("UNKNOWN_TOOL", "No tool of this name is registered.");
  if (parsed.version !== null && !(await findContract(run.organizationId, parsed.key, parsed.version))) {
    throw new ToolError("UNSUPPORTED_VERSION", `${parsed.key} has no version ${parsed.version}.`);
  }
  if (!granted) throw new ToolError("TOOL_NOT_IN_RUN", `${parsed.key} is not in this run's capability set.`);
  if (parsed.version !== null && parsed.version !== granted.version) {
    throw new ToolError(
      "UNSUPPORTED_VERSION",
      `This run uses ${parsed.key}@${granted.version}, not version ${parsed.version}.`,
    );
  }
  const registered = await findContract(run.organizationId, parsed.key, granted.version);
  if (!registered || registered.retired)
    throw new ToolError("UNSUPPORTED_VERSION", `${parsed.key}@${granted.version} is retired.`);
  const { contract } = registered;
  // The capability set already leaves writes out of a read run; this holds even if a stored set were wrong.
  if (!runMayHold(run.capabilities as RunCapabilities, contract.effect))
    throw new ToolError("TOOL_NOT_IN_RUN", `${parsed.key} changes data and this run is read-only.`);
  if (bytes > contract.max_argument_bytes) {
    throw new ToolError(
      "ARGUMENTS_TOO_LARGE",
      `Arguments of ${contract.key}@${contract.version} are limited to ${contract.max_argument_bytes} bytes.`,
    );
  }
  return contract;
}

/** The validation of a call's arguments; replay (lib/traces) runs recorded calls through it too. */
export function validateArguments(contract: Contract, args: unknown): void {
  const violation = checkAgainst(argumentsSchemaFor(contract), args, contract.kind === "mcp" ? "lenient" : "strict");
  if (violation)
    throw new ToolError("INVALID_ARGUMENTS", `Invalid arguments at ${violation.field || "/"}: ${violation.message}.`, {
      field: violation.field,
    });
  const directive = findEngineDirective(args);
  if (directive) {
    throw new ToolError(
      "INVALID_ARGUMENTS",
      `The text at ${directive.field} addresses the engine (${directive.kind}), not the tool; such text is never carried further.`,
      { field: directive.field },
    );
  }
}

export function validateOutput(contract: Contract, result: unknown): unknown {
  const violation = checkAgainst(contract.output_schema, result, contract.kind === "mcp" ? "lenient" : "strict");
  // Nothing of a result that breaks its schema reaches the caller, not even a key name: only the rule it broke.
  if (violation)
    throw new ToolError(
      "INVALID_OUTPUT",
      `The tool's result breaks its output schema (rule ${violation.schemaPath}); it was discarded.`,
    );
  return applyResultView(result, contract.result_view);
}

/** Dispatches one tool call of a run and answers the tool envelope. A run of another organization is 404. */
export function dispatchToolCall(request: ToolCallRequest): Promise<ToolEnvelope> {
  return inToolSpan(request.runId, () => dispatch(request));
}

async function dispatch(request: ToolCallRequest): Promise<ToolEnvelope> {
  const given = request.run;
  const run =
    given && given.id === request.runId && given.organizationId === request.organizationId
      ? given
      : await getRun(request.organizationId, request.runId);
  assertDrives(run, request.driver);
  const started = performance.now();
  const stepId = newId("step");
  const hash = argumentsSha256(request.arguments);
  const state: CallState = { run, retries: 0 };
  const tracked = trackCall(run.id);
  let envelope: ToolEnvelope;
  let viewed: unknown;
  try {
    const agentId = await admitCall(run);
    const contract = await resolveCall(run, request.tool, request.arguments);
    state.contract = contract;
    if (!cutsInFlight(contract)) tracked.notInterruptible();
    const executor = await executorFor(run.organizationId, contract, run.memberId);
    validateArguments(contract, request.arguments);
    const context = operatorSettings(
      request.signal ? AbortSignal.any([tracked.signal, request.signal]) : tracked.signal,
      run,
      agentId,
      await privateOriginsFor(run.organizationId),
    );
    const deadline = run.expiresAt;
    const outcome: WriteOutcome =
      contract.effect === "write"
        ? await writePath().handleWriteCall({
            run: { id: run.id, organizationId: run.organizationId, agentId, capabilities: "read_write" },
            driver: request.driver,
            contract,
            executor,
            arguments: request.arguments,
            argumentsSha256: hash,
            stepId,
            context,
            runDeadline: deadline,
          })
        : await executeUnderContract(contract, executor, request.arguments, context, deadline);
    state.retries = outcome.retries;
    viewed = validateOutput(contract, outcome.result);
    const extra =
      contract.effect === "read"
        ? await writePath().afterRead(run, contract, viewed, request.driver, stepId)
        : outcome.evidence;
    envelope = {
      ok: true,
      result: viewed,
      evidence: {
        ...extra,
        run: run.id,
        step: stepId,
        tool: `${contract.key}@${contract.version}`,
        effect: contract.effect,
        duration_ms: Math.round(performance.now() - started),
        arguments_sha256: hash,
        retries: state.retries,
        untrusted: true,
      },
    };
  } catch (error) {
    const failure = error instanceof ExecutionFailure ? error.error : asToolError(error);
    if (error instanceof ExecutionFailure) state.retries = error.retries;
    envelope = { ok: false, error: errorBody(failure) };
  } finally {
    tracked.done();
  }
  const durationMs = Math.round(performance.now() - started);
  if (envelope.ok) envelope.evidence.duration_ms = durationMs;
  await recordCall({
    stepId,
    run,
    driver: request.driver,
    toolName: request.tool,
    contract: state.contract ?? null,
    envelope,
    durationMs,
    argumentsSha256: hash,
    retries: state.retries,
    debugPayload: run.debug
      ? { arguments: redactArguments(request.arguments), result: envelope.ok ? viewed : null }
      : null,
  });
  if (isTraced(run))
    await traceCall({
      run,
      toolName: request.tool,
      contract: state.contract ?? null,
      arguments: request.arguments,
      error: envelope.ok ? null : envelope.error,
      result: viewed,
      proposalId: proposalOf(envelope),
    });
  return envelope;
}

/** The proposal a call made (candidate write, preview) or committed, as its envelope names it. */
function proposalOf(envelope: ToolEnvelope): string | null {
  if (!envelope.ok) return envelope.error.proposal_id ?? null;
  const { proposal_id: committed, proposal: previewed } = envelope.evidence as {
    proposal_id?: unknown;
    proposal?: { id?: unknown } | null;
  };
  if (typeof committed === "string") return committed;
  return typeof previewed?.id === "string" ? previewed.id : null;
}

function errorBody(error: ToolError): ToolEnvelopeError {
  const body: ToolEnvelopeError = {
    code: error.code,
    message: error.message,
    retryable: error.retryable,
    field: error.field,
  };
  if (error.retryAfterMs !== undefined) body.retry_after_ms = error.retryAfterMs;
  if (error.proposalId !== undefined) body.proposal_id = error.proposalId;
  if (error.upstreamCode !== undefined) body.upstream_code = error.upstreamCode;
  if (error.reason !== undefined) body.reason = error.reason;
  return body;
}
