import "server-only";
import { z } from "zod";
import { db } from "@/lib/db";
import { isoOffset } from "@/lib/time";
import { differenceKind, summarize, type DecisionSummary } from "./compare";
import { evaluatePolicy } from "./engine";
import { PolicyAction, type PolicyFacts, type PolicyRule } from "./rules";
import { currentPolicy } from "./service";
import type { PolicySimulationObject } from "./schemas";

// Policy simulation: a draft table evaluated against the write decisions this
// organization's live table took since a date (./judge.ts records each with its
// tool, version and consequences — never the call's arguments), compared with
// what today's live table decides on the same facts. The answer says, per tool,
// how many decisions the draft would change and how, with examples pointing at
// the recorded steps and proposals. Nothing is written and nothing enforced.

/** The newest decisions a simulation reads: enough to judge a change, bounded so it stays a quick read. */
export const SIMULATION_LIMIT = 10_000;
const EXAMPLES_PER_KIND = 5;

const StoredFacts = z.object({
  effect: z.enum(["read", "write"]),
  environment: z.string(),
  action: PolicyAction.nullable(),
  amount: z.object({ value_minor: z.number(), currency: z.string() }).nullable(),
  records_affected: z.number().int(),
  irreversible: z.boolean(),
  external_message: z.boolean(),
});

type Change = PolicySimulationObject["tools"][number]["changes"][number];

const brief = (outcome: DecisionSummary) => ({
  rule: outcome.rule,
  decision: outcome.decision,
  approvals_required: outcome.approvals_required,
});

export async function simulatePolicy(
  organizationId: string,
  input: { rules: PolicyRule[]; since: Date },
  now = new Date(),
): Promise<PolicySimulationObject> {
  const live = await currentPolicy(organizationId);
  const draft = { version: live.version + 1, rules: input.rules };
  const rows = await db.policyEvaluation.findMany({
    where: { organizationId, createdAt: { gte: input.since, lte: now } },
    orderBy: [{ createdAt: "desc" }, { id: "desc" }],
    take: SIMULATION_LIMIT + 1,
    select: {
      id: true,
      tool: true,
      toolVersion: true,
      facts: true,
      runId: true,
      stepId: true,
      proposalId: true,
      createdAt: true,
    },
  });
  const truncated = rows.length > SIMULATION_LIMIT;
  const tools = new Map<string, { tool: string; evaluated: number; changed: number; changes: Map<string, Change> }>();
  let evaluated = 0;
  let changed = 0;
  for (const row of rows.slice(0, SIMULATION_LIMIT)) {
    const parsed = StoredFacts.safeParse(row.facts);
    if (!parsed.success) continue;
    const facts: PolicyFacts = { tool: row.tool, ...parsed.data };
    const before = summarize(evaluatePolicy(live, facts));
    const after = summarize(evaluatePolicy(draft, facts));
    const entry = tools.get(row.tool) ?? { tool: row.tool, evaluated: 0, changed: 0, changes: new Map() };
    tools.set(row.tool, entry);
    entry.evaluated++;
    evaluated++;
    const kind = differenceKind(before, after);
    if (!kind) continue;
    entry.changed++;
    changed++;
    const change = entry.changes.get(kind) ?? { kind, count: 0, examples: [] };
    entry.changes.set(kind, change);
    change.count++;
    if (change.examples.length < EXAMPLES_PER_KIND)
      change.examples.push({
        step: row.stepId,
        run: row.runId,
        proposal: row.proposalId,
        tool_version: row.toolVersion,
        decided_at: isoOffset(row.createdAt),
        before: brief(before),
        after: brief(after),
      });
  }
  return {
    since: isoOffset(input.since),
    until: isoOffset(now),
    live_version: live.version,
    evaluated,
    changed,
    truncated,
    tools: [...tools.values()]
      .map((entry) => ({
        tool: entry.tool,
        evaluated: entry.evaluated,
        changed: entry.changed,
        changes: [...entry.changes.values()].sort((a, b) => b.count - a.count || a.kind.localeCompare(b.kind)),
      }))
      .sort((a, b) => b.changed - a.changed || a.tool.localeCompare(b.tool)),
  };
}
