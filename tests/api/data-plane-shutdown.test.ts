import { readdirSync } from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, expect, it } from "vitest";
import { connectCrm, createAgent, createRun, storedSteps, type ConnectedCrm } from "./dispatch-fixtures";
import { createTenant, crmFaults, suiteNetwork, type Tenant } from "./helpers";
import { startApp } from "./server";

// server/main.mjs on SIGTERM: the port stops accepting at once, every request
// already accepted finishes (its step written), then the process exits. Checked
// with a burst of slow MCP tool calls (CRM Acme answering after a delay) in
// flight when the signal arrives.

let app: Awaited<ReturnType<typeof startApp>>;
let tenant: Tenant;
let crm: ConnectedCrm;

beforeAll(async () => {
  tenant = await createTenant("pro");
  crm = await connectCrm(tenant);
  app = await startApp({
    ...process.env,
    NODE_ENV: "production",
    ...suiteNetwork(),
    GUICHET_SHUTDOWN_GRACE_MS: "30000",
  });
});

afterAll(async () => {
  await crmFaults({ slow_ms: 0 });
  await app?.stop();
});

/** Route files of the two planes' prefixes, as the source tree has them. */
function routeFiles(dir: string): number {
  return readdirSync(dir, { withFileTypes: true }).reduce(
    (n, entry) =>
      n + (entry.isDirectory() ? routeFiles(path.join(dir, entry.name)) : entry.name === "route.ts" ? 1 : 0),
    0,
  );
}

it("serves every /v1 and /mcp route file on the data plane", () => {
  const expected = routeFiles(path.resolve("app/v1")) + routeFiles(path.resolve("app/mcp"));
  expect(app.log()).toContain(`"data_plane_routes":${expected}`);
});

it("finishes every accepted tool call, step written, and refuses new connections, on SIGTERM", async () => {
  const agent = await createAgent(tenant, { tools: [crm.key("get_customer")] });
  const { run } = await createRun(tenant, { agent: agent.id });
  const call = () =>
    fetch(`${app.baseUrl}/v1/runs/${run.id}/tool_calls`, {
      method: "POST",
      headers: { authorization: `Bearer ${tenant.key}`, "content-type": "application/json" },
      body: JSON.stringify({ tool: crm.key("get_customer"), arguments: { customer_id: "C-1842" } }),
    }).then(
      async (response) => ({ status: response.status, body: await response.json() }),
      (error: { cause?: { code?: string } }) => ({ status: 0, body: null, code: error.cause?.code }),
    );
  // Warm: the route and the upstream session are loaded, so the burst is accepted at once.
  expect((await call()).status).toBe(200);
  await crmFaults({ slow_ms: 2500 });
  const burst = Array.from({ length: 8 }, call);
  await new Promise((resolve) => setTimeout(resolve, 1000));
  process.kill(app.pid, "SIGTERM");
  // Once the server says it is stopping, its port is closed (the same tick); the calls are still upstream.
  for (let i = 0; i < 100 && !app.log().includes('"event":"server.stopping"'); i++)
    await new Promise((resolve) => setTimeout(resolve, 20));
  const refused = await fetch(`${app.baseUrl}/api/health`).then(
    () => null,
    (error: { cause?: { code?: string } }) => error.cause?.code,
  );
  expect(refused).toBe("ECONNREFUSED");
  const answers = await Promise.all(burst);
  await app.exited;
  // The requests the server had accepted when the signal came: each one answered, none cut.
  const accepted = Number(/"event":"server.stopping","signal":"SIGTERM","in_flight":(\d+)/.exec(app.log())?.[1]);
  expect(accepted).toBeGreaterThan(0);
  const answered = answers.filter((answer) => answer.status !== 0);
  expect(answered.length).toBe(accepted);
  for (const answer of answered) {
    expect(answer.status).toBe(200);
    expect(answer.body).toMatchObject({ ok: true, evidence: { step: expect.stringMatching(/^step_/) } });
  }
  // A request still in the kernel's queue when the port closed is refused as a connection, never half-answered.
  for (const answer of answers.filter((a) => a.status === 0))
    expect(["ECONNRESET", "ECONNREFUSED"]).toContain((answer as { code?: string }).code);
  const steps = await storedSteps(run.id);
  expect(steps).toHaveLength(answered.length + 1);
  expect(app.log()).toContain('"event":"server.stopped"');
});
