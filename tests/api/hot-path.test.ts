import { afterAll, beforeAll, expect, it } from "vitest";
import { api, baseUrl, createTenant, signIn, startSuiteInstance, testDb, type Tenant } from "./helpers";
import { arrangePlan, models, setPlan } from "./agents-helpers";
import { startApp } from "./server";

// The authenticated request's common path keeps reference data (plan → models) in
// process. What must stay immediate is proven here, across two app instances on one
// database: a revoked key is refused at once by the instance that did not revoke it,
// an organization moved to another plan sees that plan's models at once, and the
// per-key count (taken in blocks, one SQL upsert each) loses no request when both instances take it at once.
let second: Awaited<ReturnType<typeof startApp>>;
let tenant: Tenant;

beforeAll(async () => {
  tenant = await createTenant("pro");
  second = await startSuiteInstance();
});

afterAll(async () => second?.stop());

const modelsOn = async (baseUrl: string, key: string) => {
  const response = await fetch(`${baseUrl}/v1/models`, { headers: { authorization: `Bearer ${key}` } });
  return { status: response.status, body: await response.json() };
};

it("refuses a key revoked on one instance at once on the other", async () => {
  const developer = await tenant.as("developer");
  const created = await api("/v1/api_keys", {
    json: { name: "two instances", scopes: ["agents:read"] },
    as: developer,
  });
  expect(created.status).toBe(201);
  const { id, secret } = created.body.data;
  // Both instances have served this key (anything they keep would now be warm).
  expect((await modelsOn(second.baseUrl, secret)).status).toBe(200);
  expect((await api("/v1/models", { as: { key: secret } })).status).toBe(200);

  expect((await api(`/v1/api_keys/${id}`, { method: "DELETE", as: developer })).status).toBe(200);

  const refused = await modelsOn(second.baseUrl, secret);
  expect(refused.status).toBe(401);
  expect(refused.body.error.code).toBe("unauthenticated");
  expect((await api("/v1/models", { as: { key: secret } })).status).toBe(401);
});

it("refuses at once, on the instance that kept it, a key revoked through the other one", async () => {
  const developer = await tenant.as("developer");
  const created = await api("/v1/api_keys", { json: { name: "kept on A", scopes: ["agents:read"] }, as: developer });
  const { id, secret } = created.body.data;
  expect((await api("/v1/models", { as: { key: secret } })).status).toBe(200);
  expect((await api("/v1/models", { as: { key: secret } })).status).toBe(200);

  const onSecond = await signIn(tenant.emails.developer, "guichet-demo", second.baseUrl);
  const revoked = await fetch(`${second.baseUrl}/v1/api_keys/${id}`, {
    method: "DELETE",
    headers: { cookie: onSecond.cookie! },
  });
  expect(revoked.status).toBe(200);

  const refused = await api("/v1/models", { as: { key: secret } });
  expect(refused.status).toBe(401);
  expect(refused.body.error.code).toBe("unauthenticated");
  const db = await testDb();
  expect((await db.apiKey.findUniqueOrThrow({ where: { id } })).revokedAt).not.toBeNull();
});

it("follows a key's scopes changed, then its deletion, in the database on both instances at once", async () => {
  const secret = await tenant.keyWith(["agents:read"]);
  const { hashSecret } = await import("@/lib/api-keys/service");
  const db = await testDb();
  const where = { secretHash: hashSecret(secret) };
  for (const at of [baseUrl, second.baseUrl]) expect((await modelsOn(at, secret)).status).toBe(200);

  // Written by another process than both instances, as an operator would.
  await db.apiKey.update({ where, data: { scopes: ["files:read"] } });
  for (const at of [baseUrl, second.baseUrl]) {
    const refused = await modelsOn(at, secret);
    expect(refused.status).toBe(403);
    expect(refused.body.error.code).toBe("insufficient_scope");
  }

  await db.apiKey.update({ where, data: { scopes: ["agents:read"] } });
  for (const at of [baseUrl, second.baseUrl]) expect((await modelsOn(at, secret)).status).toBe(200);

  await db.apiKey.delete({ where });
  for (const at of [baseUrl, second.baseUrl]) {
    const refused = await modelsOn(at, secret);
    expect(refused.status).toBe(401);
    expect(refused.body.error.code).toBe("unauthenticated");
  }
});

it("refuses a key revoked in the database while requests of it are in flight on both instances", async () => {
  const secret = await tenant.keyWith(["agents:read"]);
  const { hashSecret } = await import("@/lib/api-keys/service");
  const db = await testDb();
  for (const at of [baseUrl, second.baseUrl]) expect((await modelsOn(at, secret)).status).toBe(200);

  // Requests sent before the revocation may be answered either way; an instance
  // must not let one sent after it share what those read.
  const inFlight = [baseUrl, second.baseUrl].flatMap((at) => Array.from({ length: 8 }, () => modelsOn(at, secret)));
  await db.apiKey.update({ where: { secretHash: hashSecret(secret) }, data: { revokedAt: new Date() } });
  for (const at of [baseUrl, second.baseUrl]) {
    const refused = await modelsOn(at, secret);
    expect(refused.status).toBe(401);
    expect(refused.body.error.code).toBe("unauthenticated");
  }
  for (const answered of await Promise.all(inFlight)) expect([200, 401]).toContain(answered.status);
});

it("has the triggers that tell every instance of a change on each table it keeps rows of", async () => {
  // A migration that rebuilds one of these tables (SQLite) drops its triggers: instances would
  // then serve what they kept after a change.
  const watched = [
    "ApiKey",
    "Organization",
    "Plan",
    "PlanModel",
    "Model",
    "McpServer",
    "McpTool",
    "PolicyVersion",
    "ShadowPolicy",
  ];
  const db = await testDb();
  const rows =
    process.env.TEST_DB === "postgresql"
      ? await db.$queryRaw<{ table: string; events: string }[]>`
          SELECT c.relname::text AS "table", string_agg(t.tgname::text, ',') AS "events" FROM pg_trigger t
          JOIN pg_class c ON c.oid = t.tgrelid WHERE NOT t.tgisinternal GROUP BY c.relname`
      : await db.$queryRaw<{ table: string; events: string }[]>`
          SELECT tbl_name AS "table", group_concat(name, ',') AS "events" FROM sqlite_master
          WHERE type = 'trigger' GROUP BY tbl_name`;
  const byTable = new Map(rows.map((r) => [r.table, r.events]));
  for (const table of watched) {
    const names = byTable.get(table) ?? "";
    for (const event of ["insert", "update", "delete"]) expect(names, `${table} ${event}`).toContain(event);
  }
});

it("serves the organization's current plan's models right after a plan change", async () => {
  const ids = (body: { data: { id: string; default: boolean }[] }) => body.data.map((m) => [m.id, m.default]);
  const pro = await modelsOn(second.baseUrl, tenant.key);
  expect(ids(pro.body)).toEqual([
    [models.large, true],
    [models.sonnet, false],
    [models.small, false],
  ]);

  await setPlan(tenant, "free");
  expect(ids((await modelsOn(second.baseUrl, tenant.key)).body)).toEqual([
    [models.large, true],
    [models.small, false],
  ]);

  await arrangePlan(tenant, {}, [{ modelId: models.sonnet, isDefault: true }]);
  expect(ids((await modelsOn(second.baseUrl, tenant.key)).body)).toEqual([[models.sonnet, true]]);
  expect(ids((await api("/v1/models", { as: { key: tenant.key } })).body)).toEqual([[models.sonnet, true]]);
});

it("counts every request of a key when two instances take the same window at once", async () => {
  const secret = await tenant.keyWith(["agents:read"]);
  const { hashSecret } = await import("@/lib/api-keys/service");
  const { MAX_BLOCK } = await import("@/lib/limits/lease");
  const db = await testDb();
  const { id } = await db.apiKey.findUniqueOrThrow({ where: { secretHash: hashSecret(secret) } });
  const requests = 40;
  const statuses = await Promise.all(
    Array.from(
      { length: requests },
      async (_, i) => (await modelsOn(i % 2 === 0 ? second.baseUrl : baseUrl, secret)).status,
    ),
  );
  expect(statuses.every((status) => status === 200)).toBe(true);
  // Summed over windows (the minute may turn during the burst). Each instance takes tokens in
  // blocks: the count holds every request, plus at most one unspent block per instance and window.
  const windows = await db.rateLimitWindow.findMany({ where: { key: `api:${id}` } });
  const counted = windows.reduce((sum, w) => sum + w.count, 0);
  expect(counted).toBeGreaterThanOrEqual(requests);
  expect(counted - requests).toBeLessThan(2 * windows.length * MAX_BLOCK);
});

it("decides on the policy table published through the other instance from the next request", async () => {
  const read = async (path: string) =>
    (
      await fetch(`${second.baseUrl}${path}`, { headers: { authorization: `Bearer ${tenant.key}` } }).then((r) =>
        r.json(),
      )
    ).data;
  // The second instance keeps the live table and "no shadow table" after reading them once.
  const before = await read("/v1/policies");
  expect(await read("/v1/policies/shadow")).toBeNull();
  const admin = await tenant.as("admin");
  const rules = [{ id: "reads", match: { effect: "read" }, decision: "allow" }];
  const put = await api("/v1/policies", { method: "PUT", json: { rules }, as: admin });
  expect(put.status).toBe(200);
  expect((await read("/v1/policies")).version).toBe(before.version + 1);
  const shadow = await api("/v1/policies/shadow", { method: "PUT", json: { rules }, as: admin });
  expect(shadow.status).toBe(201);
  expect((await read("/v1/policies/shadow")).id).toBe(shadow.body.data.id);
  expect((await api("/v1/policies/shadow", { method: "DELETE", as: admin })).status).toBe(200);
  expect(await read("/v1/policies/shadow")).toBeNull();
});

it.runIf(process.env.TEST_DB === "postgresql")(
  "keeps one read of the cache versions in flight however many requests arrive, and answers them all from the next",
  async () => {
    const secret = await tenant.keyWith(["agents:read"]);
    expect((await modelsOn(second.baseUrl, secret)).status).toBe(200);
    const db = await testDb();
    const waiting = async () => {
      const [{ count }] = await db.$queryRaw<{ count: number }[]>`
        SELECT count(*)::int AS "count" FROM pg_stat_activity
        WHERE datname = current_database() AND wait_event_type = 'Lock' AND query LIKE '%FROM "CacheVersion"%'`;
      return count;
    };
    let answers: Promise<{ status: number }[]> = Promise.resolve([]);
    const mostWaiting = await db.$transaction(
      async (tx) => {
        // Every read of the versions now waits for this transaction.
        await tx.$executeRaw`LOCK TABLE "CacheVersion" IN ACCESS EXCLUSIVE MODE`;
        answers = Promise.all(Array.from({ length: 12 }, () => modelsOn(second.baseUrl, secret)));
        let most = 0;
        // The first request's read waits on the lock; the others arrive meanwhile and must not issue their own.
        for (let i = 0; i < 40; i++) {
          most = Math.max(most, await waiting());
          await new Promise((resolve) => setTimeout(resolve, 50));
        }
        return most;
      },
      { timeout: 30_000 },
    );
    expect(mostWaiting).toBe(1);
    expect((await answers).map((a) => a.status)).toEqual(Array(12).fill(200));
  },
);
