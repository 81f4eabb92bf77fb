import type pg from "pg";
import { createScript } from "@/connectors/model-sim/control";
import type { Cluster, Instance } from "./cluster";
import { LEASE_MS } from "./cluster";
import { call } from "./http";
import type { Random } from "./random";
import { sleep } from "./services";
import type { WorkloadContext } from "./workload";

// The faults, one at a time in a seeded order, while the mix runs: an instance
// killed (SIGKILL) while it executes runs, or while a commit it sent is in
// flight at CRM Acme (held there, then released before or after the takeover),
// PostgreSQL restarted (immediate stop), Redis stopped then started, CRM Acme
// cutting the connection after committing or answering a malformed success.
// model-sim's 500s and hangs are scripted into runs (workload.ts).

export const FAULT_KINDS = [
  "kill_mid_run",
  "kill_mid_commit",
  "postgres_restart",
  "redis_restart",
  "crm_cut_after_commit",
  "crm_malformed_success",
] as const;
export type FaultKind = (typeof FAULT_KINDS)[number];

export interface FaultLog {
  injected: Record<string, number>;
  /** A fault that found nothing to hit (no run executing, no write in flight). */
  missed: Record<string, number>;
}

interface FaultContext {
  cluster: Cluster;
  db: pg.Pool;
  work: WorkloadContext;
  random: Random;
  log: FaultLog;
  say(line: string): void;
  /** Killed instances coming back: started in the background, so the next fault does not wait for them. */
  restarts: Promise<void>[];
}

async function crmFaults(cluster: Cluster, patch: Record<string, unknown>): Promise<void> {
  await fetch(`${cluster.crmBaseUrl}/__control/faults`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify(patch),
  });
}

async function query<T>(db: pg.Pool, sql: string, params: unknown[] = []): Promise<T[]> {
  for (let attempt = 0; ; attempt += 1) {
    try {
      return (await db.query(sql, params)).rows as T[];
    } catch (error) {
      if (attempt >= 40) throw error;
      await sleep(250);
    }
  }
}

/**
 * Which lease owner id an instance runs under: a short run started on it directly holds its lease while
 * the model answers slowly. Learnt after each start, so a fault knows which instance executes a run.
 */
export async function learnOwner(
  ctx: Pick<FaultContext, "cluster" | "db" | "work">,
  instance: Instance,
): Promise<void> {
  const script = await createScript(ctx.cluster.simBaseUrl, { turns: [{ text: "Sonde.", delay_ms: 1500 }] });
  const created = await call(instance.baseUrl, "/v1/runs", {
    json: { agent: ctx.work.tenant.agentId, input: "Sonde", instructions: script.marker },
    as: { key: ctx.work.tenant.key },
  });
  if (created.status !== 201) return;
  const [row] = await query<{ leaseOwner: string | null }>(ctx.db, `SELECT "leaseOwner" FROM "Run" WHERE id = $1`, [
    created.body.data.id,
  ]);
  instance.ownerId = row?.leaseOwner ?? null;
}

/** Kills the instance, and starts it again in the background after `downMs`. */
async function killAndRestart(ctx: FaultContext, instance: Instance, downMs: number): Promise<void> {
  await ctx.cluster.kill(instance);
  ctx.restarts.push(
    sleep(downMs)
      .then(() => ctx.cluster.restart(instance))
      .then(() => learnOwner(ctx, instance)),
  );
}

/** One instance at least stays up: a kill is for an instance whose runs another one takes over. */
const mayKill = (cluster: Cluster) => cluster.instances.filter((instance) => instance.app).length >= 2;

async function until<T>(probe: () => Promise<T | null>, ms: number): Promise<T | null> {
  const deadline = Date.now() + ms;
  while (Date.now() < deadline) {
    const value = await probe();
    if (value) return value;
    await sleep(100);
  }
  return null;
}

const byOwner = (cluster: Cluster, owner: string | null) =>
  cluster.instances.find((instance) => instance.app && owner && instance.ownerId === owner) ?? null;

async function killMidRun(ctx: FaultContext): Promise<boolean> {
  if (!mayKill(ctx.cluster)) return false;
  const target = await until(async () => {
    const owners = await query<{ leaseOwner: string }>(
      ctx.db,
      `SELECT "leaseOwner" FROM "Run" WHERE status = 'active' AND "leaseOwner" IS NOT NULL AND "leaseExpiresAt" > now()`,
    );
    return byOwner(ctx.cluster, owners.length ? ctx.random.pick(owners).leaseOwner : null);
  }, 8000);
  if (!target) return false;
  ctx.say(`kill -9 ${target.name} while it executes runs`);
  await killAndRestart(ctx, target, ctx.random.int(300, 2500));
  return true;
}

async function killMidCommit(ctx: FaultContext): Promise<boolean> {
  if (!mayKill(ctx.cluster)) return false;
  await crmFaults(ctx.cluster, { hold_writes: true });
  try {
    const target = await until(async () => {
      const held = (await (await fetch(`${ctx.cluster.crmBaseUrl}/__control/held`)).json()) as { writes: number };
      if (held.writes < 1) return null;
      const running = await query<{ proposalId: string | null; leaseOwner: string | null }>(
        ctx.db,
        `SELECT o."proposalId", r."leaseOwner" FROM "Operation" o JOIN "Run" r ON r.id = o."runId" WHERE o.status = 'running'`,
      );
      for (const operation of ctx.random.next() < 0.5 ? running : [...running].reverse()) {
        const direct = operation.proposalId ? ctx.work.commitsInFlight.get(operation.proposalId) : undefined;
        const instance = direct
          ? ctx.cluster.instances.find((candidate) => candidate.baseUrl === direct && candidate.app)
          : byOwner(ctx.cluster, operation.leaseOwner);
        if (instance) return instance;
      }
      return null;
    }, 10_000);
    if (!target) return false;
    const releasedFirst = ctx.random.next() < 0.5;
    ctx.say(
      `kill -9 ${target.name} with a commit in flight (released ${releasedFirst ? "before" : "after"} the takeover)`,
    );
    await killAndRestart(ctx, target, releasedFirst ? ctx.random.int(300, 2500) : 3 * LEASE_MS);
    if (releasedFirst) await crmFaults(ctx.cluster, { hold_writes: false });
    // Held past the takeover, the status check finds nothing yet: the operation is escalated as unknown.
    else await sleep(3 * LEASE_MS);
    return true;
  } finally {
    await crmFaults(ctx.cluster, { hold_writes: false });
  }
}

async function inject(kind: FaultKind, ctx: FaultContext): Promise<boolean> {
  switch (kind) {
    case "kill_mid_run":
      return killMidRun(ctx);
    case "kill_mid_commit":
      return killMidCommit(ctx);
    case "postgres_restart": {
      const down = ctx.random.int(500, 3000);
      ctx.say(`PostgreSQL restarted (${down} ms down)`);
      await ctx.cluster.postgres.restart(down);
      return true;
    }
    case "redis_restart": {
      const down = ctx.random.int(1000, 4000);
      ctx.say(`Redis stopped for ${down} ms`);
      await ctx.cluster.redis.stop();
      await sleep(down);
      await ctx.cluster.redis.start();
      return true;
    }
    case "crm_cut_after_commit":
    case "crm_malformed_success": {
      const fault = kind === "crm_cut_after_commit" ? "cut_after_commit" : "malformed_success";
      const window = ctx.random.int(2000, 5000);
      ctx.say(`CRM Acme ${fault} for ${window} ms`);
      await crmFaults(ctx.cluster, { [fault]: true });
      await sleep(window);
      await crmFaults(ctx.cluster, { [fault]: false });
      return true;
    }
  }
}

/** Injects faults one after the other, in a seeded order, until `stop` is true. */
export async function injectFaults(ctx: FaultContext, kinds: readonly FaultKind[], stop: () => boolean): Promise<void> {
  let order: FaultKind[] = [];
  while (!stop()) {
    await sleep(ctx.random.int(1500, 5000));
    if (stop()) return;
    if (!kinds.length) continue;
    if (!order.length) order = [...kinds].sort(() => ctx.random.next() - 0.5);
    const kind = order.shift()!;
    const hit = await inject(kind, ctx);
    const tally = hit ? ctx.log.injected : ctx.log.missed;
    tally[kind] = (tally[kind] ?? 0) + 1;
  }
  await Promise.all(ctx.restarts);
}
