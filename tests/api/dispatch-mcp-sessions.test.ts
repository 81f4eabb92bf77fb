import { beforeAll, expect, it } from "vitest";
import { control } from "@/connectors/acme-crm/test-helpers";
import { callTool, connectCrm, createAgent, createRun, type ConnectedCrm } from "./dispatch-fixtures";
import { api, createTenant, crmBaseUrl, type Tenant } from "./helpers";

// Guichet keeps its MCP session with an upstream server open between tool
// calls (lib/mcp/session-pool.ts): counted on CRM Acme's side, N calls through
// POST tool_calls open one session, pausing the connector closes it, and two
// organizations on the same server never share one.

let acme: Tenant;
let globex: Tenant;
let acmeCrm: ConnectedCrm;
let globexCrm: ConnectedCrm;

const initializations = async () =>
  ((await control(crmBaseUrl, "GET", "/__control/sessions")) as { initializations: number }).initializations;

async function runWithCustomer(tenant: Tenant, crm: ConnectedCrm): Promise<string> {
  const agent = await createAgent(tenant, { tools: [crm.key("get_customer")] });
  return (await createRun(tenant, { agent: agent.id })).run.id;
}

const getCustomer = (tenant: Tenant, crm: ConnectedCrm, run: string) =>
  callTool(tenant, run, crm.key("get_customer"), { customer_id: "C-1842" });

beforeAll(async () => {
  acme = await createTenant("pro");
  globex = await createTenant("pro");
  acmeCrm = await connectCrm(acme);
  globexCrm = await connectCrm(globex);
});

it("opens one upstream session for N tool calls, and one per organization", async () => {
  const acmeRun = await runWithCustomer(acme, acmeCrm);
  const globexRun = await runWithCustomer(globex, globexCrm);
  const before = await initializations();
  for (let i = 0; i < 5; i++) expect((await getCustomer(acme, acmeCrm, acmeRun)).ok).toBe(true);
  await Promise.all(Array.from({ length: 4 }, () => getCustomer(acme, acmeCrm, acmeRun)));
  expect(await initializations()).toBe(before + 1);
  // Same server, same (absent) token: Globex gets a session of its own.
  for (let i = 0; i < 3; i++) expect((await getCustomer(globex, globexCrm, globexRun)).ok).toBe(true);
  expect(await initializations()).toBe(before + 2);
});

it("closes the connector's session when it is paused: the next call after it resumes opens a new one", async () => {
  const run = await runWithCustomer(acme, acmeCrm);
  await getCustomer(acme, acmeCrm, run);
  const before = await initializations();
  const admin = await acme.as("admin");
  const path = `/v1/mcp_servers/${acmeCrm.serverId}`;
  expect((await api(path, { method: "PATCH", json: { active: false }, as: admin })).status).toBe(200);
  expect((await getCustomer(acme, acmeCrm, run)).error.code).toBe("TOOL_UNAVAILABLE");
  expect((await api(path, { method: "PATCH", json: { active: true }, as: admin })).status).toBe(200);
  expect((await getCustomer(acme, acmeCrm, run)).ok).toBe(true);
  expect((await getCustomer(acme, acmeCrm, run)).ok).toBe(true);
  expect(await initializations()).toBe(before + 1);
});
