import "server-only";
import { log } from "@/lib/log";
import type { Contract } from "@/lib/contracts/types";
import { insertStepWithCounters } from "@/lib/db/step-record";
import { stepRow, type StepRecord } from "@/lib/runs/steps";
import type { RunDriver } from "@/lib/runs/driver";
import type { RunRow } from "@/lib/runs/service";
import { noteToolCall, noteValidationError, type ToolCallNote } from "@/lib/observability/spans";
import { counterRow, type TelemetryEvent } from "@/lib/telemetry/service";
import { parseToolName } from "./arguments";
import type { ToolEnvelope } from "./dispatcher";

// After every call, whatever its outcome: one step, its counters and one log
// line — tool, version, run, code, field and the arguments' hash, never the
// arguments or the result (those go to the step only with the run's debug flag).

const VALIDATION_CODES = new Set([
  "INVALID_ARGUMENTS",
  "ARGUMENTS_TOO_LARGE",
  "UNKNOWN_TOOL",
  "TOOL_NOT_IN_RUN",
  "UNSUPPORTED_VERSION",
]);

export interface CallRecord {
  stepId: string;
  run: RunRow;
  /** Who made the call, kept on the step. */
  driver: RunDriver;
  /** The name the caller sent; kept on the step only, never in telemetry, when it matched no registered tool. */
  toolName: string;
  contract: Contract | null;
  envelope: ToolEnvelope;
  durationMs: number;
  argumentsSha256: string;
  retries: number;
  debugPayload: Record<string, unknown> | null;
}

export async function recordCall(record: CallRecord): Promise<void> {
  const { contract, envelope, run } = record;
  const code = envelope.ok ? null : envelope.error.code;
  const field = envelope.ok ? null : envelope.error.field;
  const tool = contract?.key ?? "";
  const version = contract?.version ?? 0;
  const events: TelemetryEvent[] = [{ metric: "call", tool, version, code: code ?? "ok" }];
  if (code && VALIDATION_CODES.has(code)) {
    events.push({ metric: "validation_error", tool, version, code, field: field ?? "" });
    noteValidationError(code, field);
  }
  noteToolCall(observed(record));
  if (code === "INVALID_OUTPUT") events.push({ metric: "output_error", tool, version, code });
  // Conflicts and unknown outcomes are counted by the operation that settles them (lib/operations/service.ts),
  // not per envelope: a replayed answer or a suspended run's refused call is not a new one.
  if (record.retries > 0 && contract)
    events.push({ metric: "retry", tool, version, code: contract.retry, count: record.retries });
  await writeStepAndCounters(
    {
      id: record.stepId,
      runId: run.id,
      organizationId: run.organizationId,
      tool: contract?.key ?? (parseToolName(record.toolName) ? record.toolName : "(invalid tool name)"),
      version: contract?.version ?? null,
      status: envelope.ok ? "ok" : "error",
      errorCode: code,
      errorField: field,
      durationMs: record.durationMs,
      argumentsSha256: record.argumentsSha256,
      retries: record.retries,
      debugPayload: record.debugPayload,
      apiKeyId: record.driver.apiKeyId,
      memberId: record.driver.memberId,
    },
    events,
  );
  log(code ? "warn" : "info", "tool_call", {
    run: run.id,
    step: record.stepId,
    tool: tool || null,
    version: contract?.version ?? null,
    status: envelope.ok ? "ok" : "error",
    error_code: code,
    field,
    duration_ms: record.durationMs,
    retries: record.retries,
    arguments_sha256: record.argumentsSha256,
  });
}

/** What the trace and the metrics keep of a call: its tool, its outcome and the proposal it is about. */
function observed({ contract, envelope, stepId, durationMs }: CallRecord): ToolCallNote {
  const evidence = envelope.ok
    ? (envelope.evidence as { proposal_id?: unknown; proposal?: { id?: unknown } | null })
    : {};
  const committed = typeof evidence.proposal_id === "string" ? evidence.proposal_id : null;
  const previewed = typeof evidence.proposal?.id === "string" ? evidence.proposal.id : null;
  const refused = envelope.ok ? null : envelope.error;
  return {
    tool: contract ? { key: contract.key, version: contract.version, effect: contract.effect } : null,
    stepId,
    errorCode: refused?.code ?? null,
    errorField: refused?.field ?? null,
    decision: refused
      ? refused.code === "APPROVAL_REQUIRED"
        ? "pending_approval"
        : "refused"
      : committed
        ? "committed"
        : previewed
          ? "proposed"
          : "executed",
    proposalId: refused?.proposal_id ?? committed ?? previewed,
    durationMs,
  };
}

async function writeStepAndCounters(record: StepRecord, events: TelemetryEvent[]): Promise<void> {
  const now = new Date();
  const counters = events.map((event) => counterRow(record.organizationId, event, now));
  await insertStepWithCounters(stepRow(record), counters, now);
}
