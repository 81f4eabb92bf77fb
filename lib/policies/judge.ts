import "server-only";
import { db, type Prisma } from "@/lib/db";
import { newId } from "@/lib/ids";
import { log } from "@/lib/log";
import { countTelemetry } from "@/lib/telemetry/service";
import { differenceKind, summarize } from "./compare";
import { evaluatePolicy } from "./engine";
import type { PolicyFacts, PolicyOutcome } from "./rules";
import { currentPolicy } from "./service";
import { currentShadow } from "./shadow";

// One write decision: the live table decides; the shadow table, when there is
// one, is evaluated on the same facts and only observed. Both tables come from
// the in-process caches, so the second evaluation is a pure function call on
// the hot path. Once the caller knows the proposal it made, the decision is
// written down (recordJudgement): the facts and the live outcome, which policy
// simulation evaluates drafts against, and, when the shadow table differs, the
// difference and its counter.

export interface Judgement {
  facts: PolicyFacts;
  live: PolicyOutcome;
  shadow: { id: string; outcome: PolicyOutcome } | null;
}

export async function judge(organizationId: string, facts: PolicyFacts): Promise<Judgement> {
  const [table, shadow] = await Promise.all([currentPolicy(organizationId), currentShadow(organizationId)]);
  const live = evaluatePolicy(table, facts);
  return {
    facts,
    live,
    shadow: shadow ? { id: shadow.id, outcome: evaluatePolicy({ version: 0, rules: shadow.rules }, facts) } : null,
  };
}

export interface JudgedCall {
  organizationId: string;
  tool: { key: string; version: number };
  runId: string | null;
  stepId: string | null;
  proposalId: string | null;
}

/** The facts as stored: the consequences the engine saw, without the tool (a column) — never a payload. */
function storedFacts(facts: PolicyFacts): Prisma.InputJsonObject {
  return {
    effect: facts.effect,
    environment: facts.environment,
    action: facts.action,
    amount: facts.amount,
    records_affected: facts.records_affected,
    irreversible: facts.irreversible,
    external_message: facts.external_message,
  };
}

/** Writes the decision down; a failure is logged, never turned into a failed call (the write path decided already). */
export async function recordJudgement(judgement: Judgement, call: JudgedCall): Promise<void> {
  const { live, shadow } = judgement;
  const ids = { runId: call.runId, stepId: call.stepId, proposalId: call.proposalId };
  const liveSummary = summarize(live) as unknown as Prisma.InputJsonObject;
  try {
    await db.policyEvaluation.create({
      data: {
        id: newId("pev"),
        organizationId: call.organizationId,
        tool: call.tool.key,
        toolVersion: call.tool.version,
        facts: storedFacts(judgement.facts),
        outcome: liveSummary,
        policyVersion: live.policy_version,
        ...ids,
      },
    });
    const kind = shadow ? differenceKind(live, shadow.outcome) : null;
    if (!shadow || !kind) return;
    await db.shadowDifference.create({
      data: {
        id: newId("shd"),
        organizationId: call.organizationId,
        shadowId: shadow.id,
        tool: call.tool.key,
        toolVersion: call.tool.version,
        kind,
        live: liveSummary,
        shadow: summarize(shadow.outcome) as unknown as Prisma.InputJsonObject,
        ...ids,
      },
    });
    await countTelemetry(call.organizationId, [
      { metric: "shadow_difference", tool: call.tool.key, version: call.tool.version, code: kind },
    ]);
  } catch (error) {
    log("error", "policy.judgement_record_failed", {
      tool: call.tool.key,
      error: error instanceof Error ? error.name : "Error",
    });
  }
}
