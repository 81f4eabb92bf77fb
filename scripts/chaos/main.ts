// npm run chaos — Guichet under faults. Several instances of the production
// server on one PostgreSQL and one Redis (the harness's own, so it can restart
// them) behind HAProxy, with CRM Acme and model-sim; a seeded mix of managed
// runs and client-driven commits while instances are killed, the database and
// Redis restarted and CRM Acme misbehaves; then the invariants, checked against
// CRM Acme's records and Guichet's database. Exits 1 on any violation.
//
// CHAOS_SEED (1), CHAOS_RUNS (80), CHAOS_SECONDS (90), CHAOS_INSTANCES (3),
// CHAOS_CONCURRENCY (6). The README's « Chaos » section has the figures of a long run.
import pg from "pg";
import { LEASE_MS, startCluster, type Cluster } from "./cluster";
import { FAULT_KINDS, injectFaults, learnOwner, type FaultKind, type FaultLog } from "./faults";
import { checkInvariants, INVARIANTS, type Invariant } from "./invariants";
import { seeded } from "./random";
import { sleep } from "./services";
import { readSnapshot } from "./snapshot";
import {
  approve,
  prepareTenant,
  runScenario,
  type Ledger,
  type Plan,
  type ScenarioKind,
  type WorkloadContext,
} from "./workload";

const SEED = Number(process.env.CHAOS_SEED ?? 1);
const RUNS = Number(process.env.CHAOS_RUNS ?? 80);
const SECONDS = Number(process.env.CHAOS_SECONDS ?? 90);
const INSTANCES = Number(process.env.CHAOS_INSTANCES ?? 3);
const CONCURRENCY = Number(process.env.CHAOS_CONCURRENCY ?? 6);
/** After the mix: how long every run has to reach rest (faults off, every instance up). */
const SETTLE_MS = Number(process.env.CHAOS_SETTLE_SECONDS ?? 60) * 1000;
/** Which faults to inject (a comma list of FAULT_KINDS; empty: none), all by default. */
const FAULTS = (process.env.CHAOS_FAULTS?.split(",").filter(Boolean) ?? [...FAULT_KINDS]) as FaultKind[];

const KIND_WEIGHTS: Record<ScenarioKind, number> = {
  read: 3,
  write_approval: 4,
  client_tool: 2,
  direct_write: 2,
  model_500: 1,
  model_hang: 1,
  client_commit: 3,
};
// CHAOS_KINDS (a comma list) keeps only those scenarios, to look at one path.
const KINDS = process.env.CHAOS_KINDS?.split(",").filter(Boolean);
if (KINDS)
  for (const kind of Object.keys(KIND_WEIGHTS) as ScenarioKind[]) if (!KINDS.includes(kind)) KIND_WEIGHTS[kind] = 0;
const PLAN_WEIGHTS: Record<Plan, number> = { approve: 6, refuse: 3, expire: 1 };

const started = Date.now();
const say = (line: string) => console.log(`[${((Date.now() - started) / 1000).toFixed(1).padStart(6)} s] ${line}`);

async function main(): Promise<number> {
  say(`seed ${SEED}, at most ${RUNS} scenarios in ${SECONDS} s, ${INSTANCES} instances, ${CONCURRENCY} clients`);
  const cluster = await startCluster(INSTANCES, say);
  // Interrupted (Ctrl-C, a lane stopped): the harness's PostgreSQL, Redis and HAProxy go with it.
  for (const signal of ["SIGINT", "SIGTERM"] as const)
    process.once(signal, () => void cluster.stop().finally(() => process.exit(130)));
  const db = new pg.Pool({ connectionString: cluster.databaseUrl, max: 4 });
  db.on("error", () => undefined); // a PostgreSQL restart drops idle connections: the next query reconnects
  try {
    return await exercise(cluster, db);
  } catch (error) {
    console.error(error);
    console.error(cluster.logs().split("\n").slice(-60).join("\n"));
    return 2;
  } finally {
    await db.end().catch(() => undefined);
    await cluster.stop();
  }
}

async function exercise(cluster: Cluster, db: pg.Pool): Promise<number> {
  const random = seeded(SEED);
  const tenant = await prepareTenant(cluster.lb.baseUrl, cluster.demoKey);
  const ledger: Ledger = {
    started: Object.fromEntries(Object.keys(KIND_WEIGHTS).map((k) => [k, 0])) as Ledger["started"],
    decisions: [],
    commits: [],
    commitAnswers: {},
    lostAnswers: {},
  };
  const work: WorkloadContext = {
    base: cluster.lb.baseUrl,
    simBaseUrl: cluster.simBaseUrl,
    tenant,
    random,
    ledger,
    plans: new Map(),
    commitsInFlight: new Map(),
    instanceBases: () => cluster.instances.filter((i) => i.app).map((i) => i.baseUrl),
    patienceMs: 45_000,
  };
  for (const instance of cluster.instances) await learnOwner({ cluster, db, work }, instance);
  say(`mix starts (lease ${LEASE_MS} ms)`);
  const faults: FaultLog = { injected: {}, missed: {} };
  let scenarios = 0;
  const mixEnds = Date.now() + SECONDS * 1000;
  let mixing = true;
  let approving = true;
  const approver = approve(work, () => !approving);
  const injector = injectFaults({ cluster, db, work, random, log: faults, say, restarts: [] }, FAULTS, () => !mixing);
  // The mix goes on past CHAOS_SECONDS (up to twice as long) until every fault kind was tried once.
  const covered = () => FAULTS.every((kind) => (faults.injected[kind] ?? 0) + (faults.missed[kind] ?? 0) > 0);
  const mixGoesOn = () => Date.now() < mixEnds || (!covered() && Date.now() < mixEnds + SECONDS * 1000);
  const client = async () => {
    while (scenarios < RUNS && mixGoesOn()) {
      scenarios += 1;
      await runScenario(random.weighted(KIND_WEIGHTS), work, random.weighted(PLAN_WEIGHTS)).catch((error) =>
        say(`a client stopped on ${error instanceof Error ? error.message : error}`),
      );
    }
  };
  await Promise.all(Array.from({ length: CONCURRENCY }, client));
  mixing = false;
  await injector;
  say(`mix done: ${scenarios} scenarios; settling (faults off, every instance up)`);
  await fetch(`${cluster.crmBaseUrl}/__control/faults`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ cut_after_commit: false, malformed_success: false, hold_writes: false }),
  });
  for (const instance of cluster.instances) if (!instance.app) await cluster.restart(instance);
  const settleEnds = Date.now() + SETTLE_MS;
  while (Date.now() < settleEnds) {
    const [{ busy }] = (
      await db.query(
        `SELECT count(*)::int AS busy FROM "Run" r WHERE r."agentId" = $1 AND r."modelId" IS NOT NULL AND (r.status = 'active'
           OR (r.status = 'requires_approval' AND NOT EXISTS (SELECT 1 FROM "Proposal" p WHERE p."runId" = r.id AND p.status = 'pending')))`,
        [tenant.agentId],
      )
    ).rows;
    const [{ running }] = (
      await db.query(`SELECT count(*)::int AS running FROM "Operation" WHERE status IN ('queued', 'running')`)
    ).rows;
    if (busy === 0 && running === 0) break;
    await sleep(500);
  }
  approving = false;
  await approver;
  const { snapshot, figures } = await readSnapshot(db, tenant.agentId, cluster.crmBaseUrl, ledger, LEASE_MS);
  const violations = checkInvariants(snapshot);
  const takeovers = (cluster.logs().match(/"run\.taken_over"/g) ?? []).length;
  printTable({ figures, faults, ledger, takeovers, scenarios, violations });
  const total = Object.values(violations).reduce((sum, list) => sum + list.length, 0);
  for (const [name, list] of Object.entries(violations))
    for (const line of list.slice(0, 20)) console.log(`  ✗ ${name}: ${line}`);
  return total === 0 ? 0 : 1;
}

function printTable(r: {
  figures: Awaited<ReturnType<typeof readSnapshot>>["figures"];
  faults: FaultLog;
  ledger: Ledger;
  takeovers: number;
  scenarios: number;
  violations: Record<Invariant, string[]>;
}) {
  const line = (label: string, value: string | number) => console.log(`  ${label.padEnd(44)} ${value}`);
  const list = (counts: Record<string, number>) =>
    Object.entries(counts)
      .sort(([a], [b]) => a.localeCompare(b))
      .map(([key, count]) => `${key} ${count}`)
      .join(", ") || "none";
  console.log(`\nChaos run — seed ${SEED}, ${INSTANCES} instances, ${Math.round((Date.now() - started) / 1000)} s`);
  line("scenarios started", `${r.scenarios} (${list(r.ledger.started)})`);
  const runs = Object.values(r.figures.runs).reduce((sum, n) => sum + n, 0);
  line("runs by status", `${runs} (${list(r.figures.runs)})`);
  line("tool calls", list(r.figures.calls));
  line("proposals", list(r.figures.proposals));
  line("operations (Guichet)", list(r.figures.operations));
  line("client commits answered", list(r.ledger.commitAnswers));
  line("decisions recorded", r.ledger.decisions.length);
  line("answers lost to a fault", list(r.ledger.lostAnswers));
  line("runs taken over after a kill", r.takeovers);
  line(
    "faults injected",
    list({ ...r.faults.injected, model_500: r.ledger.started.model_500, model_hang: r.ledger.started.model_hang }),
  );
  line("faults that found nothing to hit", list(r.faults.missed));
  console.log("\n  Invariant                                                               Violations");
  for (const [name, description] of Object.entries(INVARIANTS))
    console.log(`  ${description.padEnd(72)} ${r.violations[name as Invariant].length}`);
}

main().then(
  (code) => process.exit(code),
  (error) => {
    console.error(error);
    process.exit(2);
  },
);
