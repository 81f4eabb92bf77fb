import { afterAll, beforeAll, expect, it } from "vitest";
import { createTenant, suiteNetwork, type Tenant } from "./helpers";
import { startApp } from "./server";

// A second app instance on the same database with a tiny limit: the count is
// shared through the database, so it also proves the limit holds across instances.
let app: Awaited<ReturnType<typeof startApp>>;
let tenant: Tenant;

beforeAll(async () => {
  tenant = await createTenant("pro");
  app = await startApp({
    ...process.env,
    NODE_ENV: "production",
    ...suiteNetwork(),
    GUICHET_RATE_LIMIT_PER_MINUTE: "3",
  });
});

afterAll(async () => app?.stop());

it("answers 429 rate_limited with Retry-After past the per-key limit", async () => {
  const statuses: number[] = [];
  let last: Response | undefined;
  for (let i = 0; i < 5; i++) {
    last = await fetch(`${app.baseUrl}/v1/models`, { headers: { authorization: `Bearer ${tenant.key}` } });
    statuses.push(last.status);
  }
  // The window may roll over once during the loop; at least one request past 3 in a window is refused.
  expect(statuses.filter((s) => s === 429).length).toBeGreaterThanOrEqual(1);
  const refused = await fetch(`${app.baseUrl}/v1/models`, { headers: { authorization: `Bearer ${tenant.key}` } });
  expect(refused.status).toBe(429);
  const body = await refused.json();
  expect(body.error.code).toBe("rate_limited");
  expect(Number(refused.headers.get("retry-after"))).toBeGreaterThanOrEqual(1);
  expect(Number(refused.headers.get("retry-after"))).toBeLessThanOrEqual(60);
});
