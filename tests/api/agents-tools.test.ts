import { beforeAll, describe, expect, it } from "vitest";
import { arrangeMcpServer, createAgent, setPlan } from "./agents-helpers";
import { api, createTenant, testDb, type Tenant } from "./helpers";

// Tools on an agent: the 40-tool limit, forced tools, and tools
// that are unavailable when added (refused) or became unavailable since (kept).

const patch = (tenant: Tenant, id: string, body: unknown) =>
  api(`/v1/agents/${id}`, { method: "PATCH", json: body, as: { key: tenant.key } });
const storedTools = async (id: string) => (await (await testDb()).agent.findUniqueOrThrow({ where: { id } })).tools;

describe("40 tools at most, forced tools and duplicates aside", () => {
  let tenant: Tenant;
  let available: string[];

  beforeAll(async () => {
    tenant = await createTenant("pro");
    const serverId = await arrangeMcpServer(tenant, {
      name: "Many",
      tools: Array.from({ length: 33 }, (_, i) => ({ name: `tool_${String(i).padStart(2, "0")}` })),
    });
    const catalog = await api("/v1/tools", { as: { key: tenant.key } });
    available = catalog.body.data
      .filter((t: { available: boolean; forced: boolean }) => t.available && !t.forced)
      .map((t: { key: string }) => t.key);
    // The built-in tools of the plan and the connector's 33: more than the 41 the refusal below needs.
    expect(available.filter((key) => key.startsWith(`mcp_${serverId}_`))).toHaveLength(33);
    expect(available.length).toBeGreaterThan(41);
  });

  it("accepts 40 tools, even sent with forced tools and duplicates around them", async () => {
    const forty = available.slice(0, 40);
    const sent = [
      "web_search",
      ...forty.slice(0, 20),
      "calculate",
      forty[3],
      ...forty.slice(20),
      "web_fetch",
      forty[39],
    ];
    const agent = await createAgent(tenant, { tools: sent });
    expect(agent.tools).toEqual(forty);
    expect(await storedTools(agent.id)).toEqual(forty);
  });

  it("refuses 41: 400 invalid_parameter on tools, on create and on PATCH", async () => {
    const before = await (await testDb()).agent.count({ where: { organizationId: tenant.organizationId } });
    const created = await api("/v1/agents", {
      json: { name: "Too many", tools: available.slice(0, 41) },
      as: { key: tenant.key },
    });
    expect(created.status).toBe(400);
    expect(created.body.error.code).toBe("invalid_parameter");
    expect(created.body.error.errors).toEqual([expect.objectContaining({ field: "tools", code: "too_big" })]);
    expect(await (await testDb()).agent.count({ where: { organizationId: tenant.organizationId } })).toBe(before);

    const agent = await createAgent(tenant, { tools: available.slice(0, 40) });
    const patched = await patch(tenant, agent.id, { tools: available.slice(0, 41) });
    expect(patched.status).toBe(400);
    expect(await storedTools(agent.id)).toEqual(available.slice(0, 40));
  });
});

describe("tools unavailable when added are refused with the reason", () => {
  let tenant: Tenant;
  let servers: Record<string, number>;

  beforeAll(async () => {
    tenant = await createTenant("free");
    servers = {
      crm: await arrangeMcpServer(tenant, {
        name: "CRM",
        tools: [{ name: "get_customer" }, { name: "off", enabled: false }, { name: "fresh", reviewed: false }],
      }),
      inactive: await arrangeMcpServer(tenant, { name: "Inactive", active: false, tools: [{ name: "read" }] }),
      perUser: await arrangeMcpServer(tenant, {
        name: "Per user",
        auth: "per_user_token",
        tools: [{ name: "read" }, { name: "fresh", reviewed: false }],
      }),
      oauth: await arrangeMcpServer(tenant, { name: "OAuth", auth: "oauth", tools: [{ name: "read" }] }),
    };
  });

  it.each([
    ["a data tool on a plan without Données", () => "list_data_bases", "plan_feature_missing"],
    ["a disabled MCP tool", () => `mcp_${servers.crm}_off`, "mcp_tool_disabled"],
    ["an MCP tool waiting for review", () => `mcp_${servers.crm}_fresh`, "mcp_tool_needs_review"],
    ["a tool of an inactive connector", () => `mcp_${servers.inactive}_read`, "mcp_server_inactive"],
    [
      "a per-member connector's tool waiting for review",
      () => `mcp_${servers.perUser}_fresh`,
      "mcp_tool_needs_review",
      "mcp_per_user_credentials",
    ],
  ])("%s → 422 tool_unavailable (%s)", async (_label, key, reasonCode, catalogCode = reasonCode) => {
    const tool = key();
    const catalog = await api("/v1/tools", { as: { key: tenant.key } });
    const entry = catalog.body.data.find((t: { key: string }) => t.key === tool);
    // The catalog answers as for a run with no member (seed 002's codes for per-member connectors).
    expect(entry.reason.code).toBe(catalogCode);

    const created = await api("/v1/agents", {
      json: { name: `With ${tool}`, tools: ["create_chart", tool] },
      as: { key: tenant.key },
    });
    expect(created.status).toBe(422);
    expect(created.body.error.code).toBe("tool_unavailable");
    expect(created.body.error.reason.code).toBe(reasonCode);
    expect(created.body.error.errors[0]).toMatchObject({ field: "tools[1]", code: "tool_unavailable" });
    expect(
      await (await testDb()).agent.count({ where: { organizationId: tenant.organizationId, name: `With ${tool}` } }),
    ).toBe(0);

    const agent = await createAgent(tenant, { tools: ["create_chart"] });
    const patched = await patch(tenant, agent.id, { tools: ["create_chart", tool] });
    expect(patched.status).toBe(422);
    expect(patched.body.error.reason.code).toBe(reasonCode);
    expect(await storedTools(agent.id)).toEqual(["create_chart"]);
  });

  it.each([
    ["a per-member token connector", () => `mcp_${servers.perUser}_read`, "mcp_per_user_credentials"],
    ["an OAuth connector", () => `mcp_${servers.oauth}_read`, "mcp_oauth_credentials"],
  ])("a reviewed tool of %s goes on agents: each run decides by its member", async (_label, key, catalogCode) => {
    const tool = key();
    const catalog = await api("/v1/tools", { as: { key: tenant.key } });
    expect(catalog.body.data.find((t: { key: string }) => t.key === tool).reason.code).toBe(catalogCode);
    const agent = await createAgent(tenant, { tools: ["create_chart", tool] });
    expect(agent.tools).toEqual(["create_chart", tool]);
  });

  it("names an unknown MCP key 422 unknown_tool", async () => {
    const response = await api("/v1/agents", {
      json: { name: "Ghost", tools: [`mcp_${servers.crm}_nope`] },
      as: { key: tenant.key },
    });
    expect(response.status).toBe(422);
    expect(response.body.error.code).toBe("unknown_tool");
    expect(response.body.error.errors[0].field).toBe("tools[0]");
  });
});

describe("tools that became unavailable after being saved", () => {
  it("stay in tools, appear in unavailable_tools, and never make a PATCH that does not add them fail", async () => {
    const tenant = await createTenant("pro");
    const db = await testDb();
    const crm = await arrangeMcpServer(tenant, {
      name: "CRM",
      tools: [{ name: "get_customer" }, { name: "list_orders" }, { name: "send_email", writesData: true }],
    });
    const other = await arrangeMcpServer(tenant, { name: "Other", tools: [{ name: "search" }] });
    const keys = {
      get: `mcp_${crm}_get_customer`,
      list: `mcp_${crm}_list_orders`,
      send: `mcp_${crm}_send_email`,
      search: `mcp_${other}_search`,
    };
    const tools = ["list_data_bases", keys.get, keys.list, keys.send, keys.search, "create_chart"];
    const agent = await createAgent(tenant, { tools });
    expect(agent.unavailable_tools).toEqual([]);

    // Plan downgraded, a tool disabled, another changed since review, a connector deactivated.
    await setPlan(tenant, "free");
    await db.mcpTool.updateMany({ where: { serverId: crm, name: "get_customer" }, data: { enabled: false } });
    await db.mcpTool.updateMany({ where: { serverId: crm, name: "list_orders" }, data: { fingerprint: "fp-2" } });
    await db.mcpServer.update({ where: { id: other }, data: { active: false } });
    const unavailable = ["list_data_bases", keys.get, keys.list, keys.search];

    const read = await api(`/v1/agents/${agent.id}`, { as: { key: tenant.key } });
    expect(read.body.data.tools).toEqual(tools);
    expect(read.body.data.unavailable_tools).toEqual(unavailable);
    const listed = await api("/v1/agents", { as: { key: tenant.key } });
    expect(listed.body.data[0].unavailable_tools).toEqual(unavailable);

    // A PATCH that does not touch tools.
    const renamed = await patch(tenant, agent.id, { name: "Renamed", temperature: 1 });
    expect(renamed.status).toBe(200);
    expect(renamed.body.data).toMatchObject({ tools, unavailable_tools: unavailable });
    // Re-sending the same tools, in another order, with an available one added.
    const resent = await patch(tenant, agent.id, { tools: ["inspect_file", ...[...tools].reverse()] });
    expect(resent.status).toBe(200);
    expect(resent.body.data.tools).toEqual(["inspect_file", ...[...tools].reverse()]);
    expect(resent.body.data.unavailable_tools).toEqual([...unavailable].reverse());
    // Removing one is fine; adding it back now is refused with today's reason.
    const removed = await patch(tenant, agent.id, { tools: [keys.list, keys.send] });
    expect(removed.status).toBe(200);
    const readded = await patch(tenant, agent.id, { tools: [keys.list, keys.send, keys.get] });
    expect(readded.status).toBe(422);
    expect(readded.body.error.code).toBe("tool_unavailable");
    expect(readded.body.error.reason.code).toBe("mcp_tool_disabled");
    expect(await storedTools(agent.id)).toEqual([keys.list, keys.send]);

    // A connector removed altogether: its saved keys are unavailable, not dropped.
    await db.mcpServer.delete({ where: { id: crm } });
    const gone = await api(`/v1/agents/${agent.id}`, { as: { key: tenant.key } });
    expect(gone.body.data.tools).toEqual([keys.list, keys.send]);
    expect(gone.body.data.unavailable_tools).toEqual([keys.list, keys.send]);
    expect((await patch(tenant, agent.id, { active: false })).status).toBe(200);

    // Back on pro, the data tool is available again.
    await setPlan(tenant, "pro");
    const back = await patch(tenant, agent.id, { tools: ["list_data_bases"] });
    expect(back.body.data.unavailable_tools).toEqual([]);
  });
});
