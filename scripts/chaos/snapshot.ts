import type pg from "pg";
import type { ChaosSnapshot } from "./invariants";
import type { Ledger } from "./workload";

// The recorded state after a chaos run: Guichet's rows of the chaos agent's
// runs (read with SQL, not through Guichet), CRM Acme's own operations, and
// what the harness's clients were told.

export interface Figures {
  runs: Record<string, number>;
  calls: Record<string, number>;
  proposals: Record<string, number>;
  operations: Record<string, number>;
}

const tally = (values: string[]) =>
  values.reduce<Record<string, number>>((counts, value) => ({ ...counts, [value]: (counts[value] ?? 0) + 1 }), {});

export async function readSnapshot(
  db: pg.Pool,
  agentId: string,
  crmBaseUrl: string,
  ledger: Ledger,
  leaseMs: number,
): Promise<{ snapshot: ChaosSnapshot; figures: Figures }> {
  const runs = (
    await db.query(
      `SELECT id, status, "modelId", "leaseExpiresAt", failure, output, "pendingApproval", "requiredAction"
       FROM "Run" WHERE "agentId" = $1`,
      [agentId],
    )
  ).rows;
  const runIds = runs.map((run) => run.id as string);
  const proposals = (
    await db.query(`SELECT id, "runId", status, "expiresAt" FROM "Proposal" WHERE "runId" = ANY($1)`, [runIds])
  ).rows;
  const operations = (
    await db.query(
      `SELECT "runId", "idempotencyKey", "proposalId", status, "error"->>'code' AS "errorCode", "createdAt" FROM "Operation" WHERE "runId" = ANY($1)`,
      [runIds],
    )
  ).rows;
  const decisions = (
    await db.query(`SELECT "proposalId", decision FROM "Decision" WHERE "proposalId" = ANY($1)`, [
      proposals.map((proposal) => proposal.id),
    ])
  ).rows;
  const steps = (await db.query(`SELECT status, "errorCode" FROM "Step" WHERE "runId" = ANY($1)`, [runIds])).rows;
  const [{ now }] = (await db.query(`SELECT now() AS now`)).rows;
  const crm = (await (await fetch(`${crmBaseUrl}/__control/state`)).json()) as {
    operations: { idempotency_key: string; status: string; created_at: string }[];
  };
  const snapshot: ChaosSnapshot = {
    now: new Date(now),
    leaseMs,
    runs: runs.map((run) => ({
      id: run.id,
      status: run.status,
      managed: run.modelId !== null,
      leaseExpiresAt: run.leaseExpiresAt ? new Date(run.leaseExpiresAt) : null,
      failureCode: run.failure?.code ?? null,
      hasOutput: run.output !== null,
      heldProposals: (run.pendingApproval?.calls ?? []).map((c: { proposal_id: string }) => c.proposal_id),
      requiredActions: run.requiredAction?.tool_calls?.length ?? 0,
    })),
    proposals: proposals.map((p) => ({ id: p.id, runId: p.runId, status: p.status, expiresAt: new Date(p.expiresAt) })),
    operations: operations.map((o) => ({
      runId: o.runId,
      idempotencyKey: o.idempotencyKey,
      proposalId: o.proposalId,
      status: o.status,
      errorCode: o.errorCode ?? null,
      createdAt: new Date(o.createdAt),
    })),
    decisions: decisions.map((d) => ({ proposalId: d.proposalId, decision: d.decision })),
    crmOperations: crm.operations,
    told: { decisions: ledger.decisions, commits: ledger.commits },
  };
  const figures: Figures = {
    runs: tally(runs.map((run) => (run.status === "failed" ? `failed ${run.failure?.code ?? "?"}` : run.status))),
    calls: tally(steps.map((step) => (step.status === "ok" ? "ok" : `error ${step.errorCode ?? "?"}`))),
    proposals: tally(proposals.map((p) => p.status)),
    operations: tally(operations.map((o) => o.status)),
  };
  return { snapshot, figures };
}
