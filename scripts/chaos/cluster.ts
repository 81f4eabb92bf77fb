import { randomBytes } from "node:crypto";
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { startAcmeCrm } from "@/connectors/acme-crm/server";
import { startModelSim } from "@/connectors/model-sim/server";
import { freePort, run, startApp, testNetwork } from "@/tests/api/server";
import { ensureHaproxy, startHaproxy, startPostgres, startRedis, type LoadBalancer } from "./services";

// The system under chaos: N Guichet instances (the production server,
// server/main.mjs, on the build in $GUICHET_DIST_DIR) on one PostgreSQL and one
// Redis of the harness's own, behind HAProxy, with CRM Acme and model-sim. An
// instance is killed with SIGKILL and started again on its port.

type App = Awaited<ReturnType<typeof startApp>>;

export interface Instance {
  name: string;
  port: number;
  baseUrl: string;
  app: App | null;
  /** Its lease owner id (Run.leaseOwner) since its last start, learnt by a probe run. */
  ownerId: string | null;
}

export interface Cluster {
  dir: string;
  lb: LoadBalancer;
  instances: Instance[];
  databaseUrl: string;
  crmBaseUrl: string;
  simBaseUrl: string;
  demoKey: string;
  postgres: Awaited<ReturnType<typeof startPostgres>>;
  redis: Awaited<ReturnType<typeof startRedis>>;
  /** SIGKILL: the instance dies where it stands. */
  kill(instance: Instance): Promise<void>;
  /** Starts a killed instance again on its port, healthy before this resolves. */
  restart(instance: Instance): Promise<void>;
  /** Lines the instances logged, for figures (takeovers) and failure reports. */
  logs(): string;
  stop(): Promise<void>;
}

export const LEASE_MS = 3000;

export async function startCluster(size: number, say: (line: string) => void): Promise<Cluster> {
  if (!readFileSafe(`${process.env.GUICHET_DIST_DIR ?? ".next"}/BUILD_ID`))
    throw new Error("No production build: run `npx next build` first (npm test builds before its lanes).");
  ensureHaproxy();
  const dir = mkdtempSync(path.join(os.tmpdir(), "guichet-chaos-"));
  const dataDir = path.join(dir, "data");
  mkdirSync(dataDir);
  writeFileSync(path.join(dataDir, "auth-secret"), randomBytes(32).toString("hex"));
  say("PostgreSQL and Redis of the harness's own");
  const postgres = await startPostgres(dir);
  const redis = await startRedis(dir);
  const crm = await startAcmeCrm({ port: 0, dbPath: path.join(dir, "acme-crm.sqlite"), enableControl: true });
  const sim = await startModelSim({ port: 0, enableControl: true });
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    NODE_ENV: "production",
    DATABASE_URL: postgres.url,
    REDIS_URL: redis.url,
    GUICHET_DATA_DIR: dataDir,
    ...testNetwork(),
    GUICHET_DEMO_CRM_URL: crm.url,
    GUICHET_MODEL_MISTRAL_BASE_URL: sim.url,
    GUICHET_PRIVATE_ORIGINS: [`${new URL(crm.url).origin}=acme`, `${sim.baseUrl}=*`].join(","),
    GUICHET_RUN_LEASE_MS: String(LEASE_MS),
    // A hanging model answer ends its call within seconds: the run fails model_timeout, with its reason.
    GUICHET_MODEL_TIMEOUT_MS: "4000",
    // A commit whose sender died with nobody to commit it again is settled by status within the settle phase:
    // past CRM Acme's write timeout (30 s), looked for every 2 s.
    GUICHET_OPERATION_STALE_MS: "35000",
    GUICHET_OPERATION_SWEEP_MS: "2000",
    GUICHET_RATE_LIMIT_PER_MINUTE: "1000000",
    GUICHET_RUN_CALLS_PER_MINUTE: "1000000",
    GUICHET_ORG_CALLS_PER_MINUTE: "1000000",
    // Routes load on first use: a restarted instance is back behind the balancer in seconds.
    GUICHET_PRELOAD_ROUTES: "0",
    GUICHET_LOG_LEVEL: process.env.GUICHET_LOG_LEVEL ?? "info",
  };
  say("migrations and the demo seed");
  await run(process.execPath, ["scripts/migrate.mjs"], env);
  await run(process.execPath, ["node_modules/tsx/dist/cli.mjs", "--conditions=react-server", "prisma/seed.ts"], env);
  const ports = await Promise.all(Array.from({ length: size }, () => freePort()));
  const instances: Instance[] = ports.map((port, i) => ({
    name: `g${i + 1}`,
    port,
    baseUrl: `http://127.0.0.1:${port}`,
    app: null,
    ownerId: null,
  }));
  const pastLogs: string[] = [];
  /** Instances being started again: one start each, and the cluster's stop waits for them. */
  const starting = new Map<Instance, Promise<void>>();
  say(`${size} Guichet instances`);
  await Promise.all(instances.map(async (instance) => (instance.app = await startApp(env, instance.port))));
  const lb = await startHaproxy(dir, ports);
  const demoKey = readFileSync(path.join(dataDir, "demo-api-key"), "utf8").trim();
  return {
    dir,
    lb,
    instances,
    databaseUrl: postgres.url,
    crmBaseUrl: crm.baseUrl,
    simBaseUrl: sim.baseUrl,
    demoKey,
    postgres,
    redis,
    async kill(instance) {
      if (!instance.app) return;
      await instance.app.crash();
      pastLogs.push(instance.app.log());
      instance.app = null;
      instance.ownerId = null;
    },
    async restart(instance) {
      if (instance.app) return;
      let started = starting.get(instance);
      if (!started) {
        started = startApp(env, instance.port)
          .then((app) => void (instance.app = app))
          .finally(() => starting.delete(instance));
        starting.set(instance, started);
      }
      await started;
    },
    logs: () => [...pastLogs, ...instances.map((i) => i.app?.log() ?? "")].join("\n"),
    async stop() {
      await lb.stop();
      // An instance still starting is stopped once it is up, not left running.
      await Promise.allSettled(starting.values());
      for (const instance of instances) await instance.app?.stop();
      await crm.close();
      await sim.close();
      await redis.stop();
      postgres.stop();
      if (process.env.CHAOS_KEEP !== "1") rmSync(dir, { recursive: true, force: true });
    },
  };
}

function readFileSafe(file: string): string | null {
  try {
    return readFileSync(file, "utf8");
  } catch {
    return null;
  }
}
