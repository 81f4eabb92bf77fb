import { randomBytes } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { callTool, createAgent, createRun, storedSteps } from "./dispatch-fixtures";
import { createTenant, suiteNetwork, testDb, type Tenant } from "./helpers";
import { startApp } from "./server";

// Tool-call limits hold across app instances: two servers on the same
// database, calls alternating between them, with the counts kept in the
// database — and, in a second pair, in Redis.

const RUN_LIMIT = 5;
const ORG_LIMIT = 8;

type App = Awaited<ReturnType<typeof startApp>>;

/**
 * Calls grouped by the fixed one-minute window they fell in. A call sent in one
 * minute and answered in the next may have been counted in either by the
 * server: the windows it touches are left out (a loaded machine makes them).
 */
function byWindow(results: { at: number; end: number; ok: boolean }[]): { calls: number; ok: number }[] {
  const windows = new Map<number, { calls: number; ok: number }>();
  const unsure = new Set<number>();
  for (const r of results) {
    const w = windows.get(Math.floor(r.at / 60_000)) ?? { calls: 0, ok: 0 };
    w.calls++;
    if (r.ok) w.ok++;
    windows.set(Math.floor(r.at / 60_000), w);
    if (Math.floor(r.end / 60_000) !== Math.floor(r.at / 60_000))
      for (const minute of [Math.floor(r.at / 60_000), Math.floor(r.end / 60_000)]) unsure.add(minute);
  }
  return [...windows].filter(([minute]) => !unsure.has(minute)).map(([, w]) => w);
}

describe.each([
  { backend: "database", extra: {} as Record<string, string> },
  { backend: "redis", extra: { REDIS_URL: "redis://127.0.0.1:6379" } },
])("limits shared by two instances ($backend)", ({ extra }) => {
  let apps: App[] = [];
  let tenant: Tenant;
  let agentId: string;

  beforeAll(async () => {
    tenant = await createTenant("pro");
    agentId = (await createAgent(tenant)).id;
    const env = {
      ...process.env,
      NODE_ENV: "production" as const,
      ...suiteNetwork(),
      GUICHET_RUN_CALLS_PER_MINUTE: String(RUN_LIMIT),
      GUICHET_ORG_CALLS_PER_MINUTE: String(ORG_LIMIT),
      ...extra,
    };
    apps = await Promise.all([startApp(env), startApp(env)]);
  });

  afterAll(async () => {
    await Promise.all(apps.map((app) => app.stop()));
  });

  async function burst(caller: Tenant, runIds: string[], count: number) {
    const results: { at: number; end: number; ok: boolean; envelope: any }[] = [];
    for (let i = 0; i < count; i++) {
      const at = Date.now();
      const envelope = await callTool(
        caller,
        runIds[i % runIds.length],
        "calculate",
        { expression: `${i} + 1` },
        apps[i % 2].baseUrl,
      );
      results.push({ at, end: Date.now(), ok: envelope.ok, envelope });
    }
    return results;
  }

  it("allows RUN_LIMIT calls per run and window, whichever instance answers", async () => {
    const { run } = await createRun(tenant, { agent: agentId });
    const results = await burst(tenant, [run.id], 12);
    for (const w of byWindow(results)) expect(w.ok).toBe(Math.min(w.calls, RUN_LIMIT));
    const refused = results.find((r) => !r.ok)!.envelope;
    expect(refused.error).toMatchObject({ code: "RATE_LIMITED", retryable: true, field: null });
    expect(refused.error.message).toContain("this run");
    expect(refused.error.retry_after_ms).toBeGreaterThan(0);
    expect(refused.error.retry_after_ms).toBeLessThanOrEqual(60_000);
    const steps = await storedSteps(run.id);
    expect(steps.filter((s) => s.errorCode === "RATE_LIMITED")).toHaveLength(results.filter((r) => !r.ok).length);
  });

  it("allows ORG_LIMIT calls per organization and window across its runs", async () => {
    const org = await createTenant("pro");
    const agent = await createAgent(org);
    // Enough runs that no run reaches RUN_LIMIT: every refusal is the organization's. A burst of a few
    // seconds touches at most two windows, so at most 2 × ORG_LIMIT calls pass whatever the clock says.
    const calls = 3 * ORG_LIMIT;
    const runCount = Math.ceil(calls / (RUN_LIMIT - 1));
    const runs = await Promise.all(
      Array.from({ length: runCount }, async () => (await createRun(org, { agent: agent.id })).run.id),
    );
    const results = await burst(org, runs, calls);
    for (const w of byWindow(results)) expect(w.ok).toBe(Math.min(w.calls, ORG_LIMIT));
    const refused = results.filter((r) => !r.ok);
    expect(refused.length).toBeGreaterThanOrEqual(calls - 2 * ORG_LIMIT);
    for (const { envelope } of refused) {
      expect(envelope.error.code).toBe("RATE_LIMITED");
      expect(envelope.error.message).toContain("organization");
    }
  });
});

describe("one in-flight write per target (WriteLock)", () => {
  it("lets exactly one of many concurrent holders take a target, and others take it after release or expiry", async () => {
    await testDb();
    const { acquireWriteLock, releaseWriteLock, withWriteLock } = await import("@/lib/limits/write-lock");
    const target = { organizationId: "org_locktest", type: "customer", id: `C-${randomBytes(4).toString("hex")}` };
    const holders = Array.from({ length: 20 }, (_, i) => `op_${i}`);
    const taken = await Promise.all(holders.map((holder) => acquireWriteLock(target, holder, 60_000)));
    expect(taken.filter(Boolean)).toHaveLength(1);
    const winner = holders[taken.indexOf(true)];
    const loser = holders.find((h) => h !== winner)!;

    await releaseWriteLock(target, loser); // not the holder: nothing happens
    expect(await acquireWriteLock(target, loser, 60_000)).toBe(false);
    expect(await withWriteLock(target, loser, 60_000, async () => "ran")).toEqual({ ran: false });

    await releaseWriteLock(target, winner);
    expect(await withWriteLock(target, loser, 60_000, async () => "ran")).toEqual({ ran: true, value: "ran" });

    // A crashed holder's lease runs out: the next writer takes the target over.
    expect(await acquireWriteLock(target, "op_crashed", 1)).toBe(true);
    const later = new Date(Date.now() + 50);
    expect(await acquireWriteLock(target, "op_next", 60_000, later)).toBe(true);
    await releaseWriteLock(target, "op_crashed");
    expect(
      (
        await (
          await testDb()
        ).writeLock.findUniqueOrThrow({ where: { target: `${target.organizationId}:customer:${target.id}` } })
      ).holder,
    ).toBe("op_next");
  });
});
