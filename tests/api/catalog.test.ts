import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { api, createTenant, crmFaults, testDb, type Tenant } from "./helpers";
import { catalog, catalogEntry, connectServer, patchServer, patchTool, reviewTool, syncServer } from "./mcp-helpers";

// GET /v1/tools: the whitelist, and every reason code reached through
// real state changes — plan, connector settings, per-tool review.

let free: Tenant;
let pro: Tenant;
let serverId: number;

beforeAll(async () => {
  free = await createTenant("free");
  pro = await createTenant("pro");
  serverId = await connectServer(pro);
  expect((await syncServer(pro, serverId)).status).toBe(200);
});
afterAll(async () => {
  await crmFaults({ tool_schema_variant: 1 });
});

const builtinKeys = [
  "web_search",
  "web_fetch",
  "calculate",
  "create_chart",
  "inspect_file",
  "read_uploaded_file",
  "search_text",
  "list_uploaded_files",
  "list_data_bases",
  "describe_table",
  "query_table",
  "get_operation",
];

describe("the catalog of a free organization", () => {
  it("lists the built-in tools, forced ones first, data tools refused by the plan", async () => {
    const entries = await catalog(free);
    expect(entries.map((e) => e.key)).toEqual(builtinKeys);
    expect(entries.find((e) => e.key === "web_search")).toEqual({
      key: "web_search",
      label: "Web search",
      description: "Searches the web and returns results with their URLs.",
      kind: "native",
      forced: true,
      available: true,
      reason: null,
      server: null,
      writes_data: false,
    });
    expect(entries.find((e) => e.key === "create_chart")).toEqual({
      key: "create_chart",
      label: "Chart",
      description: "Creates a bar, line, pie or area chart, returned as structured data.",
      kind: "native",
      forced: false,
      available: true,
      reason: null,
      server: null,
      writes_data: false,
    });
    expect(entries.find((e) => e.key === "list_data_bases")).toEqual({
      key: "list_data_bases",
      label: "List data bases",
      description: "Lists the data bases of the organization and their tables.",
      kind: "data",
      forced: false,
      available: false,
      reason: { code: "plan_feature_missing", message: "Your plan does not include structured data." },
      server: null,
      writes_data: false,
    });
    expect(entries.filter((e) => e.forced).map((e) => e.key)).toEqual(["web_search", "web_fetch", "calculate"]);
    expect(entries.filter((e) => e.kind === "data").every((e) => e.reason?.code === "plan_feature_missing")).toBe(true);
  });
});

describe("the catalog of a pro organization", () => {
  it("offers the data tools and one entry per tool of the connected server", async () => {
    const entries = await catalog(pro);
    expect(entries.find((e) => e.key === "list_data_bases")).toMatchObject({
      kind: "data",
      available: true,
      reason: null,
    });
    const mcp = entries.filter((e) => e.kind === "mcp");
    expect(mcp).toHaveLength(11);
    expect(mcp.every((e) => e.key.startsWith(`mcp_${serverId}_`) && e.label.startsWith("CRM Acme — "))).toBe(true);
  });

  it("keeps a freshly synced tool unavailable until a person reviews it", async () => {
    expect(await catalogEntry(pro, `mcp_${serverId}_send_email`)).toEqual({
      key: `mcp_${serverId}_send_email`,
      label: "CRM Acme — send_email",
      description: expect.stringContaining("e-mail"),
      kind: "mcp",
      forced: false,
      available: false,
      reason: {
        code: "mcp_tool_needs_review",
        message: "This tool is new or changed since its last review; a person must review it.",
      },
      server: { id: serverId, name: "CRM Acme" },
      writes_data: true,
    });
  });

  it("makes the tool available once reviewed, with writes_data as the reviewer decided", async () => {
    await reviewTool(pro, serverId, "send_email", { writes_data: true });
    await reviewTool(pro, serverId, "get_customer", { writes_data: false });
    expect(await catalogEntry(pro, `mcp_${serverId}_send_email`)).toMatchObject({
      available: true,
      reason: null,
      writes_data: true,
    });
    expect(await catalogEntry(pro, `mcp_${serverId}_get_customer`)).toMatchObject({
      available: true,
      reason: null,
      writes_data: false,
    });
  });
});

describe("every reason code, through real state changes", () => {
  const key = () => `mcp_${serverId}_get_customer`;

  it("plan_feature_missing follows the organization's plan", async () => {
    const db = await testDb();
    await db.organization.update({ where: { id: pro.organizationId }, data: { planId: "free" } });
    expect((await catalogEntry(pro, "query_table"))?.reason?.code).toBe("plan_feature_missing");
    await db.organization.update({ where: { id: pro.organizationId }, data: { planId: "pro" } });
    expect(await catalogEntry(pro, "query_table")).toMatchObject({ available: true, reason: null });
  });

  it("mcp_tool_disabled, then available again when re-enabled", async () => {
    expect((await patchTool(pro, serverId, "get_customer", { enabled: false })).status).toBe(200);
    expect(await catalogEntry(pro, key())).toMatchObject({
      available: false,
      reason: { code: "mcp_tool_disabled", message: "This tool is disabled in your MCP settings." },
    });
    await patchTool(pro, serverId, "get_customer", { enabled: true });
    expect(await catalogEntry(pro, key())).toMatchObject({ available: true });
  });

  it("mcp_server_inactive for every tool of a deactivated server", async () => {
    expect((await patchServer(pro, serverId, { active: false })).status).toBe(200);
    const mcp = (await catalog(pro)).filter((e) => e.kind === "mcp");
    expect(mcp.every((e) => !e.available && e.reason.code === "mcp_server_inactive")).toBe(true);
    expect(mcp.find((e) => e.key === key())?.reason.message).toBe("This MCP connector is inactive.");
    await patchServer(pro, serverId, { active: true });
    expect(await catalogEntry(pro, key())).toMatchObject({ available: true });
  });

  it("mcp_per_user_credentials and mcp_oauth_credentials follow the server's auth mode", async () => {
    await patchServer(pro, serverId, { auth: "per_user_token" });
    expect(await catalogEntry(pro, key())).toMatchObject({
      available: false,
      reason: {
        code: "mcp_per_user_credentials",
        message: "This connector uses a token per member; an API run has no member.",
      },
    });
    await patchServer(pro, serverId, { auth: "oauth" });
    expect(await catalogEntry(pro, key())).toMatchObject({
      available: false,
      reason: {
        code: "mcp_oauth_credentials",
        message: "This connector signs each member in with OAuth; an API run has no member.",
      },
    });
    await patchServer(pro, serverId, { auth: "none" });
    expect(await catalogEntry(pro, key())).toMatchObject({ available: true });
  });

  it("mcp_tool_needs_review when a re-sync finds the schema changed, available again once reviewed", async () => {
    await crmFaults({ tool_schema_variant: 2 });
    const sync = await syncServer(pro, serverId);
    expect(sync.body.sync.changed).toEqual(["get_customer"]);
    expect(await catalogEntry(pro, key())).toMatchObject({
      available: false,
      reason: { code: "mcp_tool_needs_review" },
      writes_data: false,
    });
    await reviewTool(pro, serverId, "get_customer");
    expect(await catalogEntry(pro, key())).toMatchObject({ available: true, writes_data: false });
    await crmFaults({ tool_schema_variant: 1 });
  });
});

describe("reading the catalog", () => {
  it("is allowed with tools:read, agents:read or runs:read, and by any member", async () => {
    for (const scope of ["tools:read", "agents:read", "runs:read"] as const) {
      expect((await api("/v1/tools", { as: { key: await pro.keyWith([scope]) } })).status).toBe(200);
    }
    expect((await api("/v1/tools", { as: await pro.as("viewer") })).status).toBe(200);
  });

  it("is refused without one of those scopes", async () => {
    const response = await api("/v1/tools", { as: { key: await pro.keyWith(["files:read", "agents:write"]) } });
    expect(response.status).toBe(403);
    expect(response.body.error.code).toBe("insufficient_scope");
  });

  it("shows one organization's servers to no other", async () => {
    expect((await catalog(free)).some((e) => e.kind === "mcp")).toBe(false);
    const other = await api(`/v1/tools/mcp_${serverId}_get_customer`, { as: { key: free.key } });
    expect(other.status).toBe(404);
    expect(other.body.error.code).toBe("not_found");
  });
});

describe("GET /v1/tools/{key}", () => {
  it("returns a native tool with its schemas", async () => {
    const response = await api("/v1/tools/calculate", { as: { key: await pro.keyWith(["tools:read"]) } });
    expect(response.status).toBe(200);
    expect(response.body.data).toMatchObject({ key: "calculate", kind: "native", forced: true, available: true });
    expect(response.body.data.input_schema).toMatchObject({ type: "object" });
    expect(response.body.data.output_schema).toMatchObject({ type: "object" });
  });

  it("returns an MCP tool with the schemas recorded at sync", async () => {
    const response = await api(`/v1/tools/mcp_${serverId}_commit_address_change`, { as: { key: pro.key } });
    expect(response.status).toBe(200);
    expect(response.body.data).toMatchObject({
      kind: "mcp",
      server: { id: serverId, name: "CRM Acme" },
      available: false,
    });
    expect(response.body.data.input_schema).toMatchObject({
      additionalProperties: false,
      required: expect.arrayContaining(["expected_version"]),
    });
  });

  it("answers 404 for a key outside the catalog", async () => {
    for (const key of ["nope", "constructor", `mcp_${serverId}_no_such_tool`, "mcp_999999_get_customer"]) {
      const response = await api(`/v1/tools/${key}`, { as: { key: pro.key } });
      expect(response.status, key).toBe(404);
    }
  });
});
