import { afterAll, beforeAll, expect, it } from "vitest";
import { api, baseUrl, createTenant, suiteNetwork, testDb, type Tenant } from "./helpers";
import { arrangePlan, models, setPlan } from "./agents-helpers";
import { startApp } from "./server";

// The authenticated request's common path keeps reference data (plan → models) in
// process. What must stay immediate is proven here, across two app instances on one
// database: a revoked key is refused at once by the instance that did not revoke it,
// an organization moved to another plan sees that plan's models at once, and the
// per-key count (one SQL upsert) loses no request when both instances write at once.
let second: Awaited<ReturnType<typeof startApp>>;
let tenant: Tenant;

beforeAll(async () => {
  tenant = await createTenant("pro");
  second = await startApp({ ...process.env, NODE_ENV: "production", ...suiteNetwork() });
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

it("counts every request of a key exactly once when two instances write the same window at once", async () => {
  const secret = await tenant.keyWith(["agents:read"]);
  const { hashSecret } = await import("@/lib/api-keys/service");
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
  // Summed over windows: the minute may turn during the burst.
  const windows = await db.rateLimitWindow.findMany({ where: { key: `api:${id}` } });
  expect(windows.reduce((sum, w) => sum + w.count, 0)).toBe(requests);
});
