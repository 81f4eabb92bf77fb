import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import {
  callTool,
  connectCrm,
  createAgent,
  createRun,
  reviewAll,
  storedSteps,
  syncServer,
  type ConnectedCrm,
} from "./dispatch-fixtures";
import { startMcpPeer, type McpPeer } from "./dispatch-mcp-peer";
import { api, createTenant, crmFaults, crmState, testDb, type Tenant } from "./helpers";

// MCP tools through the dispatcher, over the real protocol: CRM Acme's reads,
// its faults mapped to typed errors, output validation and the result view
// against a misbehaving peer, and contract versions across a re-sync.

let acme: Tenant;
let crm: ConnectedCrm;
let peer: McpPeer;
let peerServer: ConnectedCrm;

beforeAll(async () => {
  acme = await createTenant("pro");
  crm = await connectCrm(acme);
  peer = await startMcpPeer();
  peerServer = await connectCrm(acme, { url: peer.url, name: "Profils" });
});

afterEach(async () =>
  crmFaults({
    malformed_success: false,
    slow_ms: 0,
    cut_after_commit: false,
    status_down: false,
    tool_schema_variant: 1,
  }),
);
afterAll(async () => peer?.close());

async function runWith(tools: string[], capabilities: "read" | "read_write" = "read") {
  const agent = await createAgent(acme, { tools });
  return (await createRun(acme, { agent: agent.id, capabilities })).run.id as string;
}

describe("CRM Acme reads", () => {
  it("reads a customer through the MCP client, validated and marked untrusted", async () => {
    const run = await runWith([crm.key("get_customer")]);
    const stored = (await crmState()).customers.find((c: { customer_id: string }) => c.customer_id === "C-1842");
    const envelope = await callTool(acme, run, crm.key("get_customer"), { customer_id: "C-1842" });
    expect(envelope).toMatchObject({
      ok: true,
      result: { customer_id: "C-1842", name: stored.name, version: stored.version },
      evidence: { tool: `${crm.key("get_customer")}@1`, untrusted: true },
    });
  });

  it("pages orders with the service's cursor", async () => {
    const run = await runWith([crm.key("list_orders")]);
    const first = await callTool(acme, run, crm.key("list_orders"), { customer_id: "C-1842", limit: 10 });
    expect(first.result.orders).toHaveLength(10);
    const second = await callTool(acme, run, crm.key("list_orders"), {
      customer_id: "C-1842",
      limit: 10,
      cursor: first.result.next_cursor,
    });
    expect(second.result.orders[0].order_id).not.toBe(first.result.orders[0].order_id);
  });

  it("keeps the service's refusal typed: an unknown customer is UPSTREAM_ERROR pointing at the field", async () => {
    const run = await runWith([crm.key("get_customer")]);
    const envelope = await callTool(acme, run, crm.key("get_customer"), { customer_id: "C-999999" });
    expect(envelope.error).toMatchObject({
      code: "UPSTREAM_ERROR",
      upstream_code: "NOT_FOUND",
      field: "/customer_id",
      retryable: false,
    });
    expect(envelope.error.message).toContain("NOT_FOUND");
  });
});

describe("faults", () => {
  it("discards a success that breaks the output schema: INVALID_OUTPUT and nothing of it", async () => {
    const run = await runWith([crm.key("get_customer")]);
    await crmFaults({ malformed_success: true });
    const envelope = await callTool(acme, run, crm.key("get_customer"), { customer_id: "C-1842" });
    expect(envelope).toEqual({
      ok: false,
      error: {
        code: "INVALID_OUTPUT",
        message: expect.stringContaining("output schema"),
        retryable: false,
        field: null,
      },
    });
    expect(JSON.stringify(envelope)).not.toMatch(/Camille|unexpected_field|C-1842/);
    const [step] = await storedSteps(run);
    expect(step).toMatchObject({ status: "error", errorCode: "INVALID_OUTPUT", debugPayload: null });
  });

  it("answers TIMEOUT when the service is slower than the run's deadline allows", async () => {
    const run = await runWith([crm.key("get_customer")]);
    await (await testDb()).run.update({ where: { id: run }, data: { expiresAt: new Date(Date.now() + 1_500) } });
    await crmFaults({ slow_ms: 5_000 });
    const started = Date.now();
    const envelope = await callTool(acme, run, crm.key("get_customer"), { customer_id: "C-1842" });
    expect(envelope.error).toMatchObject({ code: "TIMEOUT", retryable: false });
    expect(Date.now() - started).toBeLessThan(4_500);
  });

  it("answers UPSTREAM_ERROR, after the safe retries, when the server cannot be reached", async () => {
    const lonely = await startMcpPeer();
    const server = await connectCrm(acme, { url: lonely.url, name: "Éphémère" });
    const run = await runWith([server.key("get_profile")]);
    await lonely.close();
    const envelope = await callTool(acme, run, server.key("get_profile"), { user_id: "u1" });
    expect(envelope.error).toMatchObject({ code: "UPSTREAM_ERROR", retryable: true });
    const [step] = await storedSteps(run);
    expect(step.retries).toBe(2);
  });

  it("retries a safe read the service says is busy, and records the retry", async () => {
    const run = await runWith([peerServer.key("flaky_read")]);
    const before = peer.calls.flaky_read ?? 0;
    const envelope = await callTool(acme, run, peerServer.key("flaky_read"));
    expect(envelope).toMatchObject({ ok: true, result: { attempt: before + 2 }, evidence: { retries: 1 } });
    const db = await testDb();
    const retries = await db.telemetryCounter.findMany({
      where: { organizationId: acme.organizationId, metric: "retry", tool: peerServer.key("flaky_read") },
    });
    expect(retries.reduce((sum, r) => sum + r.count, 0)).toBeGreaterThanOrEqual(1);
    expect(retries[0].code).toBe("safe");
  });
});

describe("output validation and the result view", () => {
  it("cuts fields the result view does not allow (a secret, an internal score) before anything leaves", async () => {
    const run = await runWith([peerServer.key("get_profile")]);
    const envelope = await callTool(acme, run, peerServer.key("get_profile"), { user_id: "u1" });
    expect(envelope.result).toEqual({ name: "Camille", plan: "pro" });
    expect(JSON.stringify(envelope)).not.toContain("tok_live_SECRET");
    const contract = await api(`/v1/tools/${peerServer.key("get_profile")}/contract`, { as: { key: acme.key } });
    expect(contract.body.data.result_view).toEqual(["/name", "/plan"]);
  });

  it("cuts undeclared fields at every depth: inside nested objects and inside the objects of an array", async () => {
    const agent = await createAgent(acme, { tools: [peerServer.key("get_account")] });
    const { run } = await createRun(acme, { agent: agent.id, debug: true });
    const envelope = await callTool(acme, run.id, peerServer.key("get_account"));
    expect(envelope.result).toEqual({ owner: { name: "Camille" }, contacts: [{ kind: "email" }, { kind: "phone" }] });
    const [step] = await storedSteps(run.id);
    expect(JSON.stringify([envelope, step])).not.toMatch(/OWNER_SECRET|private\.test|\+33|risk_flag/);
    const contract = await api(`/v1/tools/${peerServer.key("get_account")}/contract`, { as: { key: acme.key } });
    expect(contract.body.data.result_view).toEqual(["/owner/name", "/contacts/kind"]);
  });

  it("also cuts them from a debug run's stored payload", async () => {
    const agent = await createAgent(acme, { tools: [peerServer.key("get_profile")] });
    const { run } = await createRun(acme, { agent: agent.id, debug: true });
    await callTool(acme, run.id, peerServer.key("get_profile"), { user_id: "u1" });
    const [step] = await storedSteps(run.id);
    expect(step.debugPayload).toEqual({ arguments: { user_id: "u1" }, result: { name: "Camille", plan: "pro" } });
  });

  it("refuses a result of the wrong shape with INVALID_OUTPUT", async () => {
    const run = await runWith([peerServer.key("count_things")]);
    const envelope = await callTool(acme, run, peerServer.key("count_things"));
    expect(envelope.error).toMatchObject({ code: "INVALID_OUTPUT" });
    expect(JSON.stringify(envelope)).not.toMatch(/many|internal/);
  });

  it("gives a tool without an output schema one bounded text field", async () => {
    const run = await runWith([peerServer.key("say_hello")]);
    expect((await callTool(acme, run, peerServer.key("say_hello"), { name: "Camille" })).result).toEqual({
      text: "Bonjour Camille",
    });
  });

  it("closes the open input objects of a reviewed schema: an invented field is refused", async () => {
    const run = await runWith([peerServer.key("get_profile")]);
    const before = peer.calls.get_profile ?? 0;
    expect(
      (await callTool(acme, run, peerServer.key("get_profile"), { user_id: "u1", as_admin: true })).error,
    ).toMatchObject({ code: "INVALID_ARGUMENTS", field: "/as_admin" });
    expect(peer.calls.get_profile ?? 0).toBe(before);
  });
});

describe("contract versions", () => {
  it("publishes a new version only after review; a run keeps the version it started with", async () => {
    const key = crm.key("get_customer");
    const oldRun = await runWith([key]);
    await crmFaults({ tool_schema_variant: 2 });
    await syncServer(acme, crm.serverId);

    // Changed on the server, not reviewed: no new version, new agents cannot take it, the old run goes on with v1.
    let contract = await api(`/v1/tools/${key}/contract`, { as: { key: acme.key } });
    expect(contract.body.data.version).toBe(1);
    expect(contract.body.data.versions.map((v: { version: number }) => v.version)).toEqual([1]);
    expect(
      (await api("/v1/agents", { json: { name: "Pendant la revue", tools: [key] }, as: { key: acme.key } })).body.error
        .code,
    ).toBe("tool_unavailable");
    expect((await callTool(acme, oldRun, key, { customer_id: "C-1842" })).evidence.tool).toBe(`${key}@1`);

    await reviewAll(acme, crm.serverId);
    contract = await api(`/v1/tools/${key}/contract`, { as: { key: acme.key } });
    expect(contract.body.data.version).toBe(2);
    expect(contract.body.data.input_schema.properties.include).toBeDefined();
    expect(
      (await api(`/v1/tools/${key}/contract?version=1`, { as: { key: acme.key } })).body.data.input_schema.properties
        .include,
    ).toBeUndefined();

    const newRun = await runWith([key]);
    const fresh = await callTool(acme, newRun, key, { customer_id: "C-1842", include: ["orders_count"] });
    expect(fresh).toMatchObject({ ok: true, result: { orders_count: 25 }, evidence: { tool: `${key}@2` } });

    // The old run still calls v1: its schema refuses the new field, and v2 is not its version.
    expect((await callTool(acme, oldRun, key, { customer_id: "C-1842" })).evidence.tool).toBe(`${key}@1`);
    expect(
      (await callTool(acme, oldRun, key, { customer_id: "C-1842", include: ["orders_count"] })).error,
    ).toMatchObject({ code: "INVALID_ARGUMENTS", field: "/include" });
    expect((await callTool(acme, oldRun, `${key}@2`, { customer_id: "C-1842" })).error.code).toBe(
      "UNSUPPORTED_VERSION",
    );
    expect((await callTool(acme, newRun, `${key}@1`, { customer_id: "C-1842" })).error.code).toBe(
      "UNSUPPORTED_VERSION",
    );
    const stored = await (
      await testDb()
    ).toolContract.findMany({ where: { organizationId: acme.organizationId, key }, orderBy: { version: "asc" } });
    expect(stored.map((c) => c.version)).toEqual([1, 2]);
  });

  it("serves built-in contracts with their history and 404s for unknown tools or versions", async () => {
    const contract = await api("/v1/tools/calculate/contract", { as: { key: await acme.keyWith(["tools:read"]) } });
    expect(contract.status).toBe(200);
    expect(contract.body.data).toMatchObject({
      key: "calculate",
      version: 1,
      effect: "read",
      retry: "safe",
      timeout_ms: 2000,
      max_argument_bytes: 4096,
      result_view: ["/expression", "/result"],
      cancellation: "abort",
      retired: false,
      versions: [{ version: 1, published_at: null, retired: false }],
    });
    expect((await api("/v1/tools/calculate/contract?version=7", { as: { key: acme.key } })).status).toBe(404);
    expect((await api("/v1/tools/nothing/contract", { as: { key: acme.key } })).status).toBe(404);
    const other = await createTenant("pro");
    expect((await api(`/v1/tools/${crm.key("get_customer")}/contract`, { as: { key: other.key } })).status).toBe(404);
  });
});
