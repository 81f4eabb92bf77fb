import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { GUICHET_BOUNDS } from "@/lib/contracts/bounds";
import { LIVE_FACT_REASON } from "@/lib/contracts/live-facts";
import { callTool, connectCrm, createAgent, createRun, type ConnectedCrm } from "./dispatch-fixtures";
import { startMcpPeer, type McpPeer } from "./dispatch-mcp-peer";
import { api, createTenant, crmFaults, crmState, testDb, type Tenant } from "./helpers";
import { connectServer, reviewTool, serverTools, syncServer } from "./mcp-helpers";

// Bounds everywhere and live facts, over the real protocol: a reviewed MCP tool
// whose schema lacks a bound gets Guichet's (shown at review, stored in the
// published contract, enforced by the dispatcher before the server is called),
// and an input enum that looks like live facts is flagged at sync and review.

let acme: Tenant;
let peer: McpPeer;
let peerServer: ConnectedCrm;
let crm: ConnectedCrm;

beforeAll(async () => {
  acme = await createTenant("pro");
  crm = await connectCrm(acme);
  peer = await startMcpPeer();
  peerServer = await connectCrm(acme, { url: peer.url, name: "Profils" });
});
afterAll(async () => {
  await crmFaults({ tool_schema_variant: 1 });
  await peer?.close();
});

describe("Guichet's bounds on an MCP tool that has none", () => {
  it("are shown to the reviewer, field by field, and only where the server set none", async () => {
    const tools = await serverTools(acme, crm.serverId);
    const bounds = (name: string) => tools.find((t) => t.name === name)!.guichet_bounds;
    expect(bounds("get_customer")).toEqual([
      { pointer: "/properties/customer_id", keyword: "maxLength", value: GUICHET_BOUNDS.maxLength },
    ]);
    expect(bounds("commit_address_change")).toContainEqual({
      pointer: "/properties/expected_version",
      keyword: "maximum",
      value: GUICHET_BOUNDS.maximum,
    });
    // resume_on is a civil date (format: date): its format bounds it; invoice ids have only a pattern.
    expect(bounds("suspend_invoice_delivery")).toEqual([
      { pointer: "/properties/customer_id", keyword: "maxLength", value: GUICHET_BOUNDS.maxLength },
      { pointer: "/properties/invoice_ids/items", keyword: "maxLength", value: GUICHET_BOUNDS.maxLength },
    ]);
    expect(bounds("get_operation_status")).toEqual([]);
    const say = (await serverTools(acme, peerServer.serverId)).find((t) => t.name === "say_hello")!;
    expect(say.guichet_bounds).toEqual([
      { pointer: "/properties/name", keyword: "maxLength", value: GUICHET_BOUNDS.maxLength },
    ]);
    // The reviewer sees the server's schema as it is; the bounds are Guichet's, in the contract.
    expect(say.input_schema.properties.name.maxLength).toBeUndefined();
  });

  it("are carried by the published contract, as stored", async () => {
    const key = peerServer.key("say_hello");
    const contract = await api(`/v1/tools/${key}/contract`, { as: { key: acme.key } });
    expect(contract.status).toBe(200);
    expect(contract.body.data.input_schema.properties.name).toEqual({
      type: "string",
      maxLength: GUICHET_BOUNDS.maxLength,
    });
    const stored = await (
      await testDb()
    ).toolContract.findFirst({
      where: { organizationId: acme.organizationId, key },
      orderBy: { version: "desc" },
    });
    expect((stored!.contract as any).input_schema.properties.name.maxLength).toBe(GUICHET_BOUNDS.maxLength);
  });

  it("are enforced by the dispatcher: one character too many is INVALID_ARGUMENTS and never reaches the server", async () => {
    const agent = await createAgent(acme, { tools: [peerServer.key("say_hello"), crm.key("get_customer")] });
    const run = (await createRun(acme, { agent: agent.id, capabilities: "read" })).run.id as string;
    const before = peer.calls.say_hello ?? 0;
    const tooLong = await callTool(acme, run, peerServer.key("say_hello"), {
      name: "x".repeat(GUICHET_BOUNDS.maxLength + 1),
    });
    expect(tooLong).toMatchObject({ ok: false, error: { code: "INVALID_ARGUMENTS", field: "/name" } });
    expect(tooLong.error.message).toContain(String(GUICHET_BOUNDS.maxLength));
    expect(peer.calls.say_hello ?? 0).toBe(before);
    const atBound = await callTool(acme, run, peerServer.key("say_hello"), {
      name: "x".repeat(GUICHET_BOUNDS.maxLength),
    });
    expect(atBound.ok, JSON.stringify(atBound.error)).toBe(true);
    expect(peer.calls.say_hello).toBe(before + 1);
    // CRM Acme's customer_id has only a pattern: Guichet's maximum length is what refuses first.
    const crmTooLong = await callTool(acme, run, crm.key("get_customer"), {
      customer_id: `C-${"1".repeat(GUICHET_BOUNDS.maxLength)}`,
    });
    expect(crmTooLong).toMatchObject({ ok: false, error: { code: "INVALID_ARGUMENTS", field: "/customer_id" } });
    expect(crmTooLong.error.message).toContain(String(GUICHET_BOUNDS.maxLength));
  });
});

describe("live facts in an input enum", () => {
  it("flags nothing in CRM Acme's stable vocabularies", async () => {
    const id = await connectServer(acme, { name: "CRM Acme (faits vivants)" });
    const sync = await syncServer(acme, id);
    expect(sync.status).toBe(200);
    expect(sync.body.sync.live_fact_enums).toEqual([]);
    for (const tool of await serverTools(acme, id)) expect(tool.live_fact_enums, tool.name).toEqual([]);
  });

  it("flags id-shaped values and long lists at sync and at review, over the real protocol", async () => {
    const plans = Array.from({ length: 25 }, (_, i) => `offre${String.fromCharCode(97 + i)}`);
    const stock = await startMcpPeer({
      extraTools: [
        {
          name: "reserve_stock",
          description: "Reserve stock in a warehouse.",
          annotations: { readOnlyHint: false },
          inputSchema: {
            type: "object",
            properties: {
              warehouse: { type: "string", enum: ["WH-1001", "WH-1002", "WH-2040"] },
              plan: { type: "string", enum: plans },
              unit: { type: "string", enum: ["piece", "box"] },
            },
            required: ["warehouse"],
          },
        },
      ],
    });
    try {
      const id = await connectServer(acme, { name: "Stocks", url: stock.url });
      const sync = await syncServer(acme, id);
      expect(sync.status).toBe(200);
      // In pointer order, whatever order the database kept the schema's keys in.
      const flags = [
        {
          pointer: "/properties/plan",
          signals: ["many_values"],
          value_count: 25,
          id_examples: [],
          reason: LIVE_FACT_REASON,
        },
        {
          pointer: "/properties/warehouse",
          signals: ["id_shaped"],
          value_count: 3,
          id_examples: ["WH-1001", "WH-1002", "WH-2040"],
          reason: LIVE_FACT_REASON,
        },
      ];
      expect(sync.body.sync.live_fact_enums).toEqual(flags.map((f) => ({ tool: "reserve_stock", ...f })));
      const tool = (await serverTools(acme, id)).find((t) => t.name === "reserve_stock")!;
      expect(tool.live_fact_enums).toEqual(flags);
      // Every other tool of the peer lists no enum.
      expect((await serverTools(acme, id)).filter((t) => t.live_fact_enums.length > 0).map((t) => t.name)).toEqual([
        "reserve_stock",
      ]);
    } finally {
      await stock.close();
    }
  });

  it("flags an enum whose values changed between two syncs, at sync and at review, with the seed's reason", async () => {
    const id = await connectServer(acme, { name: "CRM Acme (variantes)" });
    await crmFaults({ tool_schema_variant: 2 });
    expect((await syncServer(acme, id)).body.sync.live_fact_enums).toEqual([]);
    await reviewTool(acme, id, "get_customer", { writes_data: false });
    await crmFaults({ tool_schema_variant: 3 });
    const sync = await syncServer(acme, id);
    expect(sync.status).toBe(200);
    const flag = {
      pointer: "/properties/include/items",
      signals: ["changed_between_syncs"],
      value_count: 1,
      id_examples: [],
      reason: LIVE_FACT_REASON,
    };
    expect(sync.body.sync.live_fact_enums).toEqual([{ tool: "get_customer", ...flag }]);
    const tool = (await serverTools(acme, id)).find((t) => t.name === "get_customer")!;
    expect(tool).toMatchObject({ status: "needs_review", live_fact_enums: [flag] });
    expect(tool.live_fact_enums[0].reason).toContain("N'encodez pas sous forme d'enums statiques");
    // A second sync of the same values: nothing changed between these two syncs.
    expect((await syncServer(acme, id)).body.sync.live_fact_enums).toEqual([]);
  });
});

describe("a civil date through Guichet", () => {
  it("refuses an impossible day of CRM Acme's resume_on before any proposal, and proposes a real one", async () => {
    const key = crm.key("suspend_invoice_delivery");
    const contract = await api(`/v1/tools/${key}/contract`, { as: { key: acme.key } });
    expect(contract.body.data.input_schema.properties.resume_on).toMatchObject({ type: "string", format: "date" });
    const agent = await createAgent(acme, { tools: [key] });
    const run = (await createRun(acme, { agent: agent.id, capabilities: "read_write" })).run.id as string;
    const args = (day: string) => ({
      customer_id: "C-1842",
      invoice_ids: ["INV-1842-001"],
      resume_on: day,
    });
    const proposals = () =>
      testDb().then((db) => db.proposal.count({ where: { organizationId: acme.organizationId } }));
    const crmBefore = JSON.stringify(await crmState());
    const before = await proposals();
    for (const day of ["2026-02-30", "2027-02-29", "2026-13-01"]) {
      const envelope = await callTool(acme, run, key, args(day));
      expect(envelope, day).toMatchObject({ ok: false, error: { code: "INVALID_ARGUMENTS", field: "/resume_on" } });
    }
    expect(await proposals()).toBe(before);
    const real = await callTool(acme, run, key, args("2096-02-29"));
    expect(real).toMatchObject({ ok: false, error: { code: "APPROVAL_REQUIRED" } });
    expect(await proposals()).toBe(before + 1);
    const proposal = await (
      await testDb()
    ).proposal.findFirst({
      where: { organizationId: acme.organizationId, runId: run },
    });
    // The approver reads the day as it is, never shifted by a time zone.
    expect(proposal?.effect).toBe("Suspendre l'envoi de 1 facture du client C-1842 jusqu'au 29/02/2096.");
    expect(JSON.stringify(await crmState())).toBe(crmBefore);
  });
});
