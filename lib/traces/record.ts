import "server-only";
import { createHash } from "node:crypto";
import { canonicalJson, plainJson } from "@/lib/canonical";
import type { Contract } from "@/lib/contracts/types";
import { db, Prisma, type DbOrTx } from "@/lib/db";
import { newId } from "@/lib/ids";
import { log } from "@/lib/log";
import type { CapabilityEntry } from "@/lib/runs/model";
import { StoredPolicyFacts, type RecordedPolicy } from "./effects";
import { redact } from "./redact";

// The trace of a run whose agent opted in (`trace: "redacted"`): one row per
// point, written by the code where that point happens — the run's creation
// (catalog), the managed loop (model request, final answer), the dispatcher
// (each call) and the approval step. Every caller checks `run.trace` first,
// so an untraced run costs nothing; a traced one costs one insert per point.
// Payloads are redacted before they are stored (./redact.ts) and never logged.

/** The codes of a call refused before its validation passed: such a call is recorded, never replayed. */
export const VALIDATION_REFUSALS = new Set([
  "INVALID_ARGUMENTS",
  "ARGUMENTS_TOO_LARGE",
  "UNKNOWN_TOOL",
  "TOOL_NOT_IN_RUN",
  "UNSUPPORTED_VERSION",
]);

/** The run facts the recorder needs: the dispatcher and the loop already hold them. */
export interface TracedRun {
  id: string;
  organizationId: string;
  trace: string;
}

export const isTraced = (run: { trace: string }) => run.trace === "redacted";

interface TraceRow {
  kind: "catalog" | "model_request" | "call" | "approval" | "answer";
  tool?: string | null;
  version?: number | null;
  valid?: boolean | null;
  payload: unknown;
}

async function insert(run: TracedRun, row: TraceRow, tx: DbOrTx = db): Promise<void> {
  try {
    await tx.traceEvent.create({
      data: {
        id: newId("trc"),
        runId: run.id,
        organizationId: run.organizationId,
        kind: row.kind,
        tool: row.tool ?? null,
        version: row.version ?? null,
        valid: row.valid ?? null,
        payload: plainJson(row.payload) as Prisma.InputJsonValue,
      },
    });
  } catch (error) {
    // Inside a caller's transaction a failure must abort it; outside, a lost trace point never fails the call.
    if (tx !== db) throw error;
    log("error", "trace_failed", { run: run.id, kind: row.kind, error: (error as Error).name });
  }
}

/** The tools the run may use, as frozen at its creation (keys and versions). */
export function traceCatalog(run: TracedRun, capabilitySet: CapabilityEntry[], tx: DbOrTx): Promise<void> {
  return insert(
    run,
    { kind: "catalog", payload: { tools: capabilitySet.map(({ key, version }) => ({ key, version })) } },
    tx,
  );
}

/** A managed run's model request: how many messages and which tool list (its hash), never their text. */
export async function traceModelRequest(run: TracedRun, messages: readonly unknown[], tools: unknown): Promise<void> {
  if (!isTraced(run)) return;
  const toolsSha256 = createHash("sha256")
    .update(canonicalJson(plainJson(tools)), "utf8")
    .digest("hex");
  await insert(run, {
    kind: "model_request",
    payload: { messages: messages.length, tools: Array.isArray(tools) ? tools.length : 0, tools_sha256: toolsSha256 },
  });
}

export interface TracedCall {
  run: TracedRun;
  toolName: string;
  contract: Contract | null;
  arguments: unknown;
  /** The error of a refused or failed call; null when it succeeded. */
  error: { code: string; field: string | null; message: string } | null;
  result: unknown;
  /** The proposal the call made (a write's candidate, a preview) or committed, when there is one. */
  proposalId: string | null;
}

/**
 * What the policy asked of the proposal a call made or committed: the rule, the
 * decision, the approvals, and the facts it was decided on — what replay
 * evaluates again after a change (./effects.ts). None of it is a payload value.
 */
async function proposalPolicy(organizationId: string, proposalId: string | null): Promise<RecordedPolicy | null> {
  if (!proposalId) return null;
  const row = await db.proposal.findFirst({
    where: { id: proposalId, organizationId },
    select: {
      tool: true,
      policy: true,
      environment: true,
      recordsAffected: true,
      irreversible: true,
      amountValueMinor: true,
      amountCurrency: true,
    },
  });
  const stored = row ? StoredPolicyFacts.safeParse(row.policy) : null;
  if (!row || !stored?.success) return null;
  return {
    tool: row.tool,
    rule: stored.data.rule,
    decision: stored.data.decision,
    approvals_required: stored.data.approvals_required,
    facts: {
      environment: row.environment,
      action: stored.data.action,
      amount:
        row.amountValueMinor !== null && row.amountCurrency !== null
          ? { value_minor: Number(row.amountValueMinor), currency: row.amountCurrency }
          : null,
      records_affected: row.recordsAffected,
      irreversible: row.irreversible,
      external_message: stored.data.external_message,
    },
  };
}

/** One tool call: redacted arguments, the validation decision, the outcome, the redacted result, its effect and policy. */
export async function traceCall(call: TracedCall): Promise<void> {
  const { contract, error } = call;
  const args = redact(call.arguments, contract?.input_schema);
  const valid = error === null || !VALIDATION_REFUSALS.has(error.code);
  const result = error ? null : redact(call.result, contract?.output_schema);
  await insert(call.run, {
    kind: "call",
    tool: contract?.key ?? null,
    version: contract?.version ?? null,
    valid,
    payload: {
      tool: contract ? `${contract.key}@${contract.version}` : redact(call.toolName).value,
      arguments: args.value,
      redactions: args.redactions,
      validation: valid ? { ok: true } : { ok: false, code: error!.code, field: error!.field },
      outcome: error
        ? { ok: false, code: error.code, field: error.field, message: redact(error.message).value }
        : { ok: true },
      result: result?.value ?? null,
      result_redactions: result?.redactions ?? [],
      effect: contract?.effect ?? null,
      policy: await proposalPolicy(call.run.organizationId, call.proposalId),
    },
  });
}

/** A person's decision on a proposal a traced run made (its reason or note redacted). */
export async function traceApproval(
  run: TracedRun,
  decision: { proposal: string; tool: string; version: number; kind: string; role: string; text: string | null },
): Promise<void> {
  if (!isTraced(run)) return;
  await insert(run, {
    kind: "approval",
    tool: decision.tool,
    version: decision.version,
    payload: {
      proposal: decision.proposal,
      decision: decision.kind,
      role: decision.role,
      text: decision.text === null ? null : redact(decision.text).value,
    },
  });
}

/** The final answer of a managed run, or its failure, redacted. */
export async function traceAnswer(
  run: TracedRun,
  end: { status: string; output?: unknown; failure?: unknown },
): Promise<void> {
  if (!isTraced(run)) return;
  await insert(run, { kind: "answer", payload: redact(end).value });
}
