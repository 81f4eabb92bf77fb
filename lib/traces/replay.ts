import "server-only";
import { z } from "zod";
import { findContract } from "@/lib/contracts/registry";
import type { Contract } from "@/lib/contracts/types";
import { db, type DbOrTx } from "@/lib/db";
import { asToolError } from "@/lib/executors";
import { notFound } from "@/lib/http/errors";
import { currentPolicy } from "@/lib/policies/service";
import type { PolicyRule } from "@/lib/policies/rules";
import { validateArguments } from "@/lib/proposals/dispatch";
import { effectChanges } from "./effects";
import type { ReplayRefusal, ReplayReport } from "./schemas";

type PolicyTableRules = { version: number; rules: readonly PolicyRule[] };

// Replay: the recorded calls of a tool that passed validation when they were
// made, run again through the dispatcher's own validation (validateArguments)
// of another contract version, and judged again for their effects: the
// version's effect and the policy table on the recorded facts (./effects.ts).
// Nothing executes and nothing is written: the questions are "would this
// version still accept what agents really sent?" and "would it still do, and
// ask, the same?".
// Arguments are the trace's redacted copies; placeholders keep the shape of
// what they replace (./redact.ts), and a refusal on a redacted value says so.

/** The newest calls checked per replay: enough to judge a change, bounded so a replay stays a quick read. */
export const REPLAY_CALL_LIMIT = 5_000;
const LISTED_REFUSALS = 100;

const Recorded = z.object({
  arguments: z.unknown(),
  redactions: z.array(z.object({ pointer: z.string(), kind: z.string() })).catch([]),
});

/** One pointer is the other or lies inside it. */
const overlaps = (a: string, b: string) => a === b || a.startsWith(`${b}/`) || b.startsWith(`${a}/`);

/** A recorded call as stored: its trace point, its run, and the payload the recorder wrote (./record.ts). */
export interface RecordedCall {
  trace: string;
  run: string;
  payload: unknown;
}

/**
 * The recorded calls, oldest first, through the contract's validation: the
 * report of the replay endpoint, the CLI and the review, and of the regression
 * suite that replays the committed traces (tests/traces/) against the current contracts.
 */
export function checkRecordedCalls(
  contract: Contract,
  calls: readonly RecordedCall[],
  policy: PolicyTableRules,
  policyKey?: (tool: string) => string,
): ReplayReport {
  const refusals: ReplayRefusal[] = [];
  for (const call of calls) {
    const recorded = Recorded.safeParse(call.payload);
    if (!recorded.success) continue;
    try {
      validateArguments(contract, recorded.data.arguments ?? null);
    } catch (error) {
      const refusal = asToolError(error);
      const field = refusal.field;
      refusals.push({
        trace: call.trace,
        run: call.run,
        code: refusal.code,
        field,
        message: refusal.message,
        redacted: field !== null && recorded.data.redactions.some((r) => overlaps(r.pointer, field)),
      });
    }
  }
  const effects = effectChanges(
    contract,
    calls.map((call) => ({ trace: call.trace, run: call.run, payload: call.payload })),
    policy,
    policyKey,
  );
  return {
    tool: contract.key,
    version: contract.version,
    checked: calls.length,
    still_valid: calls.length - refusals.length,
    refused: refusals.length,
    now_refused: refusals.slice(0, LISTED_REFUSALS),
    effects_checked: effects.checked,
    effects_changed: effects.changes.slice(0, LISTED_REFUSALS),
  };
}

export async function replayCalls(organizationId: string, contract: Contract, tx: DbOrTx = db): Promise<ReplayReport> {
  const rows = await tx.traceEvent.findMany({
    where: { organizationId, kind: "call", tool: contract.key, valid: true },
    select: { id: true, runId: true, payload: true },
    orderBy: [{ createdAt: "desc" }, { id: "desc" }],
    take: REPLAY_CALL_LIMIT,
  });
  return checkRecordedCalls(
    contract,
    rows.reverse().map((row) => ({ trace: row.id, run: row.runId, payload: row.payload })),
    await currentPolicy(organizationId, tx),
  );
}

/** POST /v1/contracts/{key}/replay: a version this organization's registry does not hold is 404. */
export async function replayContractVersion(
  organizationId: string,
  key: string,
  version: number,
): Promise<ReplayReport> {
  const registered = await findContract(organizationId, key, version);
  if (!registered) throw notFound("Contract version");
  return replayCalls(organizationId, registered.contract);
}
