import { afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { callTool, createAgent, createRun, storedSteps } from "./dispatch-fixtures";
import { api, createTenant, crmFaults, testDb, until, type Tenant } from "./helpers";
import {
  approvedAddressChange,
  commit,
  crmCustomer,
  crmOperationsOf,
  resetCrm,
  setupCrm,
  type CrmSetup,
} from "./proposals-helpers";
import { crmHeldWrites, holdWrites, operationOf } from "./write-proofs-helpers";

// Each reviewed MCP tool has its own timeout: set at review, or the default of
// its effect (reads shorter than writes). It is part of the published contract,
// so it fires on its own, long before the run's deadline; a write that times
// out is an unknown outcome, settled by asking the service's status.

let setup: CrmSetup;
let other: Tenant;

beforeAll(async () => {
  setup = await setupCrm(await createTenant("pro"));
  other = await createTenant("pro");
});
beforeEach(resetCrm);
afterEach(async () => {
  await holdWrites(false);
  await crmFaults({ slow_ms: 0 });
});

const toolPath = (name: string) => `/v1/mcp_servers/${setup.crm.serverId}/tools/${name}`;

async function setTimeoutOf(name: string, timeout_ms: unknown, as?: Awaited<ReturnType<Tenant["as"]>>) {
  return api(toolPath(name), { method: "PATCH", json: { timeout_ms }, as: as ?? (await setup.tenant.as("admin")) });
}

async function contractOf(name: string) {
  return (await api(`/v1/tools/${setup.crm.key(name)}/contract`, { as: { key: setup.tenant.key } })).body.data;
}

async function storedTimeout(name: string) {
  return (await (await testDb()).mcpTool.findFirst({ where: { serverId: setup.crm.serverId, name } }))?.timeoutMs;
}

describe("the review sets a tool's timeout", () => {
  it("defaults by effect: a read 10 s, a write 30 s, shown in the review API and the contract", async () => {
    const tools = (await api(`/v1/mcp_servers/${setup.crm.serverId}/tools`, { as: await setup.tenant.as("admin") }))
      .body.data as Array<Record<string, any>>;
    expect(tools.find((t) => t.name === "get_customer")).toMatchObject({
      timeout_ms: 10_000,
      timeout_source: "default",
    });
    expect(tools.find((t) => t.name === "commit_address_change")).toMatchObject({
      timeout_ms: 30_000,
      timeout_source: "default",
    });
    expect((await contractOf("get_customer")).timeout_ms).toBe(10_000);
  });

  it("publishes a new contract version with the reviewer's timeout, and null goes back to the default", async () => {
    const before = await contractOf("list_orders");
    const set = await setTimeoutOf("list_orders", 2_500);
    expect(set.status).toBe(200);
    expect(set.body.data).toMatchObject({ timeout_ms: 2_500, timeout_source: "review" });
    expect(await contractOf("list_orders")).toMatchObject({ timeout_ms: 2_500, version: before.version + 1 });
    const reset = await setTimeoutOf("list_orders", null);
    expect(reset.body.data).toMatchObject({ timeout_ms: 10_000, timeout_source: "default" });
    expect(await storedTimeout("list_orders")).toBeNull();
  });

  it.each([[100], [600_000], [1.5], ["5000"]])(
    "refuses %j as a timeout (400 invalid_parameter) and keeps the stored one",
    async (value) => {
      const response = await setTimeoutOf("get_operation_status", value);
      expect(response.status).toBe(400);
      expect(response.body.error.code).toBe("invalid_parameter");
      expect(response.body.error.errors[0].field).toBe("timeout_ms");
      expect(await storedTimeout("get_operation_status")).toBeNull();
    },
  );

  it("is an owner's or admin's decision, within the organization", async () => {
    expect((await setTimeoutOf("get_operation_status", 1_000, await setup.tenant.as("approver"))).status).toBe(403);
    expect((await setTimeoutOf("get_operation_status", 1_000, await other.as("admin"))).status).toBe(404);
    expect(await storedTimeout("get_operation_status")).toBeNull();
  });
});

describe("a tool's own timeout fires before the run's deadline", () => {
  it("a read: TIMEOUT naming the tool's limit, recorded on the step, the run still far from its deadline", async () => {
    expect((await setTimeoutOf("get_customer", 1_000)).status).toBe(200);
    const agent = await createAgent(setup.tenant, { tools: [setup.crm.key("get_customer")] });
    const run = (await createRun(setup.tenant, { agent: agent.id })).run;
    await crmFaults({ slow_ms: 8_000 });
    const started = Date.now();
    const envelope = await callTool(setup.tenant, run.id, setup.crm.key("get_customer"), { customer_id: "C-1842" });
    const elapsed = Date.now() - started;
    expect(envelope).toMatchObject({
      ok: false,
      error: { code: "TIMEOUT", message: "The tool did not answer within 1000 ms." },
    });
    // Safe reads are retried once the timeout is theirs, not the run's: each attempt stops at 1 s.
    expect(elapsed).toBeLessThan(7_000);
    expect(new Date(run.expires_at).getTime() - Date.now()).toBeGreaterThan(60_000);
    const [step] = await storedSteps(run.id);
    expect(step).toMatchObject({
      tool: setup.crm.key("get_customer"),
      version: (await contractOf("get_customer")).version,
      status: "error",
      errorCode: "TIMEOUT",
    });
    await setTimeoutOf("get_customer", null);
  });

  it("a write: the commit times out on the tool's limit, the status is asked, and the outcome is unknown — never sent twice", async () => {
    expect((await setTimeoutOf("commit_address_change", 1_000)).status).toBe(200);
    const run = await setup.run();
    const proposal = await approvedAddressChange(setup, run, "ADDR-2");
    await holdWrites(true);
    const envelope = await commit(setup, run, "commit_address_change", proposal.id);
    expect(envelope.error).toMatchObject({ code: "OUTCOME_UNKNOWN", proposal_id: proposal.id });
    expect(await crmHeldWrites()).toBe(1);
    const operation = await operationOf(proposal.id);
    expect(operation).toMatchObject({ status: "unknown" });
    expect(JSON.stringify(operation?.error)).toContain("within 1000 ms");
    await holdWrites(false);
    await until(async () => (await crmOperationsOf(run)).length === 1, "the held write to land");
    expect(await crmCustomer("C-1842")).toMatchObject({ version: 18 });
    // Asking again does not send again: the operation waits for a person.
    expect((await commit(setup, run, "commit_address_change", proposal.id)).error).toMatchObject({
      code: "OUTCOME_UNKNOWN",
    });
    expect(await crmOperationsOf(run)).toHaveLength(1);
    await setTimeoutOf("commit_address_change", null);
  });
});
