import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createScript, scriptRecord } from "@/connectors/model-sim/control";
import { callTool, createAgent, createRun } from "./dispatch-fixtures";
import { createTenant, crmUrl, simBaseUrl, type Tenant } from "./helpers";
import { startApp, testNetwork } from "./server";

// A built-in that can only fail is not offered: an instance without
// GUICHET_SEARCH_URL (a second app on the suite's database, set up as an
// operator who never configured search would) lists web_search as unavailable
// with the setting to define, and leaves it out of every run: API runs (with
// the warning of seed 002), managed runs' tools, the MCP door's tools/list.

let app: Awaited<ReturnType<typeof startApp>>;
let acme: Tenant;
let agentId: string;

const NOT_CONFIGURED = {
  code: "not_configured",
  message: "This tool needs GUICHET_SEARCH_URL, which is not set on this server.",
};

beforeAll(async () => {
  acme = await createTenant("pro");
  agentId = (await createAgent(acme, { tools: ["create_chart"] })).id;
  const { GUICHET_SEARCH_URL: _unset, ...withoutSearch } = process.env;
  void _unset;
  app = await startApp({
    ...withoutSearch,
    NODE_ENV: "production",
    ...testNetwork(),
    GUICHET_PRIVATE_ORIGINS: [`${new URL(crmUrl).origin}=*`, `${simBaseUrl}=*`].join(","),
    GUICHET_MODEL_MISTRAL_BASE_URL: `${simBaseUrl}/v1`,
    GUICHET_MODEL_MISTRAL_API_KEY: "sk-sim-suite",
    GUICHET_MODEL_TIMEOUT_MS: "2000",
  });
});

afterAll(async () => {
  await app?.stop();
});

async function get(path: string): Promise<{ status: number; body: any }> {
  const response = await fetch(`${app.baseUrl}${path}`, { headers: { authorization: `Bearer ${acme.key}` } });
  return { status: response.status, body: await response.json() };
}

async function post(path: string, json: unknown): Promise<{ status: number; body: any }> {
  const response = await fetch(`${app.baseUrl}${path}`, {
    method: "POST",
    headers: { authorization: `Bearer ${acme.key}`, "content-type": "application/json" },
    body: JSON.stringify(json),
  });
  return { status: response.status, body: await response.json() };
}

describe("an instance without GUICHET_SEARCH_URL", () => {
  it("lists web_search as unavailable, the reason naming the setting to define", async () => {
    const listed = await get("/v1/tools");
    expect(listed.status).toBe(200);
    const entry = listed.body.data.find((e: { key: string }) => e.key === "web_search");
    expect(entry).toMatchObject({ key: "web_search", forced: true, available: false, reason: NOT_CONFIGURED });
    // The other forced built-ins need no setting.
    for (const key of ["web_fetch", "calculate"])
      expect(listed.body.data.find((e: { key: string }) => e.key === key)).toMatchObject({
        available: true,
        reason: null,
      });
    const detail = await get("/v1/tools/web_search");
    expect(detail.status).toBe(200);
    expect(detail.body.data).toMatchObject({ available: false, reason: NOT_CONFIGURED });
  });

  it("leaves it out of an API run with seed 002's warning; a call on it is not in the run", async () => {
    const created = await post("/v1/runs", { agent: agentId });
    expect(created.status).toBe(201);
    expect(created.body.warnings).toEqual([{ code: "tool_unavailable", tool: "web_search", reason: NOT_CONFIGURED }]);
    const keys = created.body.data.capability_set.map((entry: { tool: string }) => entry.tool);
    expect(keys).toEqual(expect.arrayContaining(["calculate", "web_fetch", "create_chart"]));
    expect(keys).not.toContain("web_search");
    const envelope = await callTool(acme, created.body.data.id, "web_search", { query: "guichet" }, app.baseUrl);
    expect(envelope).toMatchObject({ ok: false, error: { code: "TOOL_NOT_IN_RUN", retryable: false } });
  });

  it("refuses web_search as TOOL_UNAVAILABLE, naming the setting, to a run frozen where it was configured", async () => {
    // The suite's own server has a search backend: its run carries web_search.
    const { run, warnings } = await createRun(acme, { agent: agentId });
    expect(warnings).toEqual([]);
    expect(run.capability_set.map((entry: { tool: string }) => entry.tool)).toContain("web_search");
    const envelope = await callTool(acme, run.id, "web_search", { query: "guichet" }, app.baseUrl);
    expect(envelope).toMatchObject({
      ok: false,
      error: { code: "TOOL_UNAVAILABLE", message: NOT_CONFIGURED.message, retryable: false },
    });
  });

  it("does not offer it to a managed run's model", async () => {
    const s = await createScript(simBaseUrl, { turns: [{ text: "Bonjour." }] });
    const created = await post("/v1/runs", { agent: agentId, input: "Bonjour", instructions: s.marker, wait: 60 });
    expect(created.status).toBe(201);
    expect(created.body.warnings).toEqual([{ code: "tool_unavailable", tool: "web_search", reason: NOT_CONFIGURED }]);
    const [request] = (await scriptRecord(simBaseUrl, s.id)).requests;
    const offered = request.tools?.map((t) => t.function.name) ?? [];
    expect(offered).toEqual(expect.arrayContaining(["calculate", "web_fetch", "create_chart"]));
    expect(offered).not.toContain("web_search");
  });

  it("omits it from the MCP door's tools/list", async () => {
    const transport = new StreamableHTTPClientTransport(new URL(`${app.baseUrl}/mcp/agents/${agentId}`), {
      requestInit: { headers: { authorization: `Bearer ${acme.key}` } },
    });
    const client = new Client({ name: "guichet-tests", version: "1.0.0" });
    await client.connect(transport);
    try {
      const names = (await client.listTools()).tools.map((tool) => tool.name);
      expect(names).toEqual(expect.arrayContaining(["calculate", "web_fetch", "create_chart"]));
      expect(names).not.toContain("web_search");
      const called = await client.callTool({ name: "web_search", arguments: { query: "guichet" } });
      expect(called.isError).toBe(true);
      expect(called.structuredContent).toMatchObject({ error: { code: "TOOL_NOT_IN_RUN" } });
    } finally {
      await transport.terminateSession().catch(() => undefined);
      await client.close();
    }
  });
});
