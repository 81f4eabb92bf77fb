// The `npm start` kill/restart check: the demo stack (scripts/start.mjs) is
// started on a data folder of its own, a demo managed run is started, and the
// whole stack is killed (SIGKILL to its process group: the server, CRM Acme,
// everything, as a power cut) while the run's model call is in flight. `npm
// start` again on the same folder: the restarted server takes the run over
// once its lease lapsed, the run reaches its approval, the demo approver
// approves, and the run completes with one write in CRM Acme.
//
// Usage: npx tsx --conditions=react-server scripts/chaos/start-restart.ts
// (uses the build in $GUICHET_DIST_DIR, building it first if sources changed).
import { spawn, type ChildProcess } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { ScriptBody } from "@/connectors/model-sim/script";
import { startModelSim } from "@/connectors/model-sim/server";
import { freePort } from "@/tests/api/server";
import { call, signIn } from "./http";
import { sleep } from "./services";

const say = (line: string) => console.log(`[start-restart] ${line}`);

async function until<T>(probe: () => Promise<T | null | undefined>, what: string, ms: number): Promise<T> {
  const deadline = Date.now() + ms;
  while (Date.now() < deadline) {
    const value = await probe().catch(() => null);
    if (value) return value;
    await sleep(250);
  }
  throw new Error(`still waiting for ${what} after ${ms} ms`);
}

async function main(): Promise<number> {
  const dataDir = mkdtempSync(path.join(os.tmpdir(), "guichet-start-"));
  const [port, crmPort, shopPort] = [await freePort(), await freePort(), await freePort()];
  // The demo's own script, its first model answer slow: the kill lands while that call is in flight.
  const demo = ScriptBody.parse(JSON.parse(readFileSync("connectors/model-sim/demo/address-change.json", "utf8")));
  demo.turns[0] = { ...demo.turns[0], delay_ms: 5000 } as (typeof demo.turns)[number];
  const sim = await startModelSim({ port: 0, enableControl: true, defaultScript: demo });
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    PORT: String(port),
    CRM_PORT: String(crmPort),
    GUICHET_DEMO_SHOP_PORT: String(shopPort),
    GUICHET_DATA_DIR: dataDir,
    GUICHET_MODEL_BASE_URL: sim.url,
    GUICHET_PRIVATE_ORIGINS: `http://127.0.0.1:${crmPort}=acme,${sim.baseUrl}=*`,
    // CRM Acme's records are read at the end: one write for the run.
    CRM_ENABLE_CONTROL: "1",
  };
  delete env.DATABASE_URL;
  const base = `http://127.0.0.1:${port}`;
  let stack: ChildProcess | null = null;
  const start = async () => {
    // Its own process group, as a terminal's foreground job: a signal to the group reaches every child.
    stack = spawn(process.execPath, ["scripts/start.mjs"], {
      env,
      detached: true,
      stdio: ["ignore", "ignore", "inherit"],
    });
    await until(async () => (await fetch(`${base}/api/health`)).ok, "npm start to serve", 600_000);
  };
  const killStack = async () => {
    const closed = new Promise((resolve) => stack!.once("close", resolve));
    process.kill(-stack!.pid!, "SIGKILL");
    await closed;
    // The group's other members (the server, CRM Acme) die with it; their ports free as they go.
    await until(
      async () =>
        !(await fetch(`${base}/api/health`).then(
          () => true,
          () => false,
        )),
      "the server to die",
      30_000,
    );
  };
  try {
    say("npm start");
    await start();
    const key = { key: readFileSync(path.join(dataDir, "demo-api-key"), "utf8").trim() };
    const agents = await call(base, "/v1/agents?limit=100", { as: key });
    const agent = (agents.body.data as { id: string; name: string }[]).find((a) => a.name.startsWith("Changements"));
    if (!agent) throw new Error("the demo's address agent is missing");
    const created = await call(base, "/v1/runs", {
      json: { agent: agent.id, input: "Passe C-1842 à l'adresse de Lyon.", capabilities: "read_write" },
      as: key,
    });
    if (created.status !== 201) throw new Error(`run: HTTP ${created.status} ${JSON.stringify(created.body)}`);
    const runId = created.body.data.id as string;
    await until(
      async () =>
        ((await (await fetch(`${sim.baseUrl}/__control/scripts/default`)).json()) as { served: number }).served >= 1 ||
        null,
      "the model call",
      30_000,
    );
    say(`killing the whole stack during run ${runId} (model call in flight)`);
    await killStack();
    say("npm start again on the same data folder");
    await start();
    const waiting = await until(
      async () => {
        const run = (await call(base, `/v1/runs/${runId}`, { as: key })).body.data;
        return run.status === "requires_approval" ? run : null;
      },
      "the run to be taken over and reach its approval",
      120_000,
    );
    const approver = await signIn(base, "approver@acme.test");
    const proposal = (await call(base, `/v1/proposals/${waiting.pending_proposals[0]}`, { as: approver })).body.data;
    const approved = await call(base, `/v1/proposals/${proposal.id}/approve`, {
      json: { arguments_sha256: proposal.arguments_sha256 },
      as: approver,
    });
    if (approved.status !== 200) throw new Error(`approve: HTTP ${approved.status}`);
    const done = await until(
      async () => {
        const run = (await call(base, `/v1/runs/${runId}`, { as: key })).body.data;
        return ["completed", "failed"].includes(run.status) ? run : null;
      },
      "the run to end",
      60_000,
    );
    const writes = await call(`http://127.0.0.1:${crmPort}`, "/__control/state", { as: {} });
    const ops = (writes.status === 200 ? writes.body.operations : null) as { idempotency_key: string }[] | null;
    say(
      `run ${runId}: ${done.status}${ops ? `, CRM Acme writes of the run: ${ops.filter((o) => o.idempotency_key.startsWith(runId)).length}` : ""}`,
    );
    return done.status === "completed" ? 0 : 1;
  } finally {
    if (stack) await killStack().catch(() => undefined);
    await sim.close();
    rmSync(dataDir, { recursive: true, force: true });
  }
}

main().then(
  (code) => process.exit(code),
  (error) => {
    console.error(error);
    process.exit(1);
  },
);
