import { spawn, type ChildProcess } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { connect } from "node:net";
import { tmpdir } from "node:os";
import path from "node:path";
import Redis from "ioredis";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createAgent } from "./agents-helpers";
import { createTenant, suiteNetwork, testDb, until, type Tenant } from "./helpers";
import { freePort, startApp } from "./server";

// The rate limiter's store (Redis, REDIS_URL) stopped: every request still gets its typed answer. The counts
// go to the database while Redis is away, so the limit still holds; each fallback is counted in
// guichet_rate_limit_store_fallbacks_total and logged. The Redis here is a redis-server of the test's own on
// a free port, stopped and started again by the test (never a shared one).

type App = Awaited<ReturnType<typeof startApp>>;
const LIMIT = 6;
const METRICS_TOKEN = "metrics-token-redis-down-test";
let app: App;
let tenant: Tenant;
let agentId: string;
/** A key only this test's instance counts (the suite's server counts the tenant's main key in the database). */
let key: string;
let port: number;
let dir: string;
let server: ChildProcess | null = null;

function portOpen(): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect(port, "127.0.0.1");
    socket.once("connect", () => (socket.destroy(), resolve(true)));
    socket.once("error", () => resolve(false));
  });
}

async function startRedis() {
  server = spawn(
    "redis-server",
    ["--port", String(port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no", "--dir", dir],
    { stdio: "ignore" },
  );
  await until(portOpen, "redis-server to listen");
}

async function stopRedis() {
  const child = server!;
  server = null;
  const closed = new Promise((resolve) => child.once("close", resolve));
  child.kill("SIGKILL");
  await closed;
  await until(async () => !(await portOpen()), "redis-server to be gone");
}

/** The rate-limit keys Redis holds for this tenant's API key. */
async function redisCounts(): Promise<string[]> {
  const client = new Redis(`redis://127.0.0.1:${port}`, { maxRetriesPerRequest: 1 });
  try {
    return await client.keys("guichet:rl:api:*");
  } finally {
    client.disconnect();
  }
}

const createRun = (as = key) =>
  fetch(`${app.baseUrl}/v1/runs`, {
    method: "POST",
    headers: { authorization: `Bearer ${as}`, "content-type": "application/json" },
    body: JSON.stringify({ agent: agentId }),
  });

async function fallbacks(): Promise<number> {
  const text = await (
    await fetch(`${app.baseUrl}/metrics`, { headers: { authorization: `Bearer ${METRICS_TOKEN}` } })
  ).text();
  const line = text.split("\n").find((row) => row.startsWith("guichet_rate_limit_store_fallbacks_total"));
  return line ? Number(line.split(" ").at(-1)) : 0;
}

beforeAll(async () => {
  dir = mkdtempSync(path.join(tmpdir(), "guichet-redis-down-"));
  port = await freePort();
  await startRedis();
  tenant = await createTenant("pro");
  agentId = (await createAgent(tenant)).id;
  key = await tenant.keyWith(["runs:write"]);
  app = await startApp({
    ...process.env,
    NODE_ENV: "production",
    ...suiteNetwork(),
    REDIS_URL: `redis://127.0.0.1:${port}`,
    GUICHET_RATE_LIMIT_PER_MINUTE: String(LIMIT),
    GUICHET_METRICS_TOKEN: METRICS_TOKEN,
  });
}, 180_000);

afterAll(async () => {
  await app?.stop();
  if (server) await stopRedis();
  rmSync(dir, { recursive: true, force: true });
});

describe("POST /v1/runs while the rate limiter's Redis is stopped", () => {
  it("answers its typed envelopes, the limit held through the database, and counts the fallback", async () => {
    const created = await createRun();
    expect(created.status).toBe(201);
    expect(await redisCounts()).not.toEqual([]);
    expect(await fallbacks()).toBe(0);

    await stopRedis();
    const statuses: number[] = [];
    const runs: string[] = [];
    let refused: Response | null = null;
    // Past the limit in the database's count, refused — within 3 × LIMIT even if the minute turns meanwhile.
    while (statuses.length < 3 * LIMIT && !refused) {
      const response = await createRun();
      statuses.push(response.status);
      if (response.status === 201) runs.push(((await response.json()) as { data: { id: string } }).data.id);
      else if (response.status === 429) refused = response;
      else throw new Error(`HTTP ${response.status}: ${await response.text()}`);
    }
    expect(runs.length).toBeGreaterThanOrEqual(1);
    expect(refused).not.toBeNull();
    expect(((await refused!.json()) as { error: { code: string } }).error.code).toBe("rate_limited");
    expect(Number(refused!.headers.get("retry-after"))).toBeGreaterThanOrEqual(1);
    // Each run answered 201 is stored; the count of this key's window is in the database.
    const db = await testDb();
    expect(await db.run.count({ where: { id: { in: runs }, organizationId: tenant.organizationId } })).toBe(
      runs.length,
    );
    const keyIds = (await db.apiKey.findMany({ where: { organizationId: tenant.organizationId } })).map((k) => k.id);
    const windows = await db.rateLimitWindow.findMany({ where: { key: { in: keyIds.map((id) => `api:${id}`) } } });
    // Counted in the database only while Redis was away: the suite's server never saw this key.
    expect(windows.reduce((sum, row) => sum + row.count, 0)).toBeGreaterThanOrEqual(runs.length);
    expect(await fallbacks()).toBeGreaterThanOrEqual(runs.length);
    expect(app.log()).toContain("rate_limit.store_unavailable");

    // Redis back (empty: it kept nothing): once reconnected, counts go to Redis again. A fresh key each try:
    // the first key's window is spent in this instance until the minute turns.
    await startRedis();
    await until(async () => {
      const response = await createRun(await tenant.keyWith(["runs:write"]));
      if (response.status !== 201) throw new Error(`HTTP ${response.status}`);
      return (await redisCounts()).length > 0;
    }, "the counts to be in Redis again");
  });
});
