import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { api, baseUrl, createTenant, crmFaults, startSuiteInstance, testDb, type Tenant } from "./helpers";
import { createAgent } from "./dispatch-fixtures";
import { resetCrm, setupCrm, type CrmSetup } from "./proposals-helpers";
import { mcpUrl, sdkClient } from "./mcp-server-helpers";
import { startApp } from "./server";

// The MCP endpoint's frame, over raw HTTP: who may call it, from where, how
// much, in which protocol version — each refusal with its exact status and
// code, and proof that nothing was created. Then two instances serving one
// session, and the same call through MCP and REST leaving the same step.

let setup: CrmSetup;
let other: Tenant;

const ACCEPT = "application/json, text/event-stream";
const initialize = (protocolVersion = "2025-11-25") => ({
  jsonrpc: "2.0",
  id: 1,
  method: "initialize",
  params: { protocolVersion, capabilities: {}, clientInfo: { name: "raw-http", version: "0.1" } },
});

async function post(url: string, body: unknown, headers: Record<string, string> = {}): Promise<Response> {
  return fetch(url, {
    method: "POST",
    headers: { "content-type": "application/json", accept: ACCEPT, ...headers },
    body: typeof body === "string" ? body : JSON.stringify(body),
  });
}

/** A key the signed-in admin creates, with its id (to find its runs and revoke it). */
async function adminKey(name: string): Promise<{ key: string; id: string }> {
  const created = await api("/v1/api_keys", {
    json: { name: `mcp ${name} ${Date.now()}`, scopes: ["runs:write"] },
    as: await setup.tenant.as("admin"),
  });
  expect(created.status).toBe(201);
  return { key: created.body.data.secret as string, id: created.body.data.id as string };
}

async function mcpRunCount(agentId: string): Promise<number> {
  return (await testDb()).run.count({ where: { agentId, source: "mcp" } });
}

beforeAll(async () => {
  setup = await setupCrm(await createTenant("pro"));
  other = await createTenant("pro");
  await resetCrm();
});

describe("who may call", () => {
  it("refuses a missing or unknown key with 401 and WWW-Authenticate, a key without runs:write with 403", async () => {
    const before = await mcpRunCount(setup.agentId);
    const missing = await post(mcpUrl(setup.agentId), initialize());
    expect(missing.status).toBe(401);
    expect(missing.headers.get("www-authenticate")).toMatch(/^Bearer/);
    expect((await missing.json()).error.data.code).toBe("unauthenticated");
    const unknown = await post(mcpUrl(setup.agentId), initialize(), { authorization: "Bearer gk_live_not-a-key" });
    expect(unknown.status).toBe(401);
    const readOnly = await post(mcpUrl(setup.agentId), initialize(), {
      authorization: `Bearer ${await setup.tenant.keyWith(["runs:read", "agents:read", "tools:read"])}`,
    });
    expect(readOnly.status).toBe(403);
    expect(readOnly.headers.get("www-authenticate")).toContain('error="insufficient_scope"');
    expect((await readOnly.json()).error.data.code).toBe("insufficient_scope");
    expect(await mcpRunCount(setup.agentId)).toBe(before);
  });

  it("answers 404 for another organization's agent, and for its session ids", async () => {
    const crossTenant = await post(mcpUrl(setup.agentId), initialize(), { authorization: `Bearer ${other.key}` });
    expect(crossTenant.status).toBe(404);
    expect((await crossTenant.json()).error.data.code).toBe("not_found");
    const init = await post(mcpUrl(setup.agentId), initialize(), { authorization: `Bearer ${setup.tenant.key}` });
    const sessionId = init.headers.get("mcp-session-id") as string;
    expect(sessionId).toMatch(/^mcps_/);
    const otherAgent = await createAgent(other);
    for (const agent of [setup.agentId, otherAgent.id]) {
      const stolen = await post(
        mcpUrl(agent),
        { jsonrpc: "2.0", id: 2, method: "tools/list" },
        { authorization: `Bearer ${other.key}`, "mcp-session-id": sessionId, "mcp-protocol-version": "2025-11-25" },
      );
      expect(stolen.status).toBe(404);
      expect((await stolen.json()).error.code).toBe(-32001);
    }
  });

  it("binds a session to the key that opened it: another key of the organization gets 404, the session goes on", async () => {
    const keyA = await adminKey("A");
    const keyB = await adminKey("B");
    const init = await post(mcpUrl(setup.agentId), initialize(), { authorization: `Bearer ${keyA.key}` });
    const sessionId = init.headers.get("mcp-session-id") as string;
    const run = await (await testDb()).run.findFirstOrThrow({ where: { apiKeyId: keyA.id, source: "mcp" } });
    const call = (key: string, id: number) =>
      post(
        mcpUrl(setup.agentId),
        {
          jsonrpc: "2.0",
          id,
          method: "tools/call",
          params: { name: "calculate", arguments: { expression: "6 * 7" } },
        },
        { authorization: `Bearer ${key}`, "mcp-session-id": sessionId, "mcp-protocol-version": "2025-11-25" },
      );
    const stolen = await call(keyB.key, 2);
    expect(stolen.status).toBe(404);
    expect((await stolen.json()).error.code).toBe(-32001);
    const ending = await fetch(mcpUrl(setup.agentId), {
      method: "DELETE",
      headers: { authorization: `Bearer ${keyB.key}`, "mcp-session-id": sessionId },
    });
    expect(ending.status).toBe(404);
    const db = await testDb();
    expect(await db.step.count({ where: { runId: run.id } })).toBe(0);
    expect((await db.run.findUniqueOrThrow({ where: { id: run.id } })).status).toBe("active");
    const own = await call(keyA.key, 3);
    expect(own.status).toBe(200);
    expect((await own.json()).result.structuredContent.evidence.run).toBe(run.id);
    expect(await db.step.findMany({ where: { runId: run.id }, select: { apiKeyId: true } })).toEqual([
      { apiKeyId: keyA.id },
    ]);
  });

  it("ends a key's sessions when the key is revoked: its next request is 401, the run is cancelled", async () => {
    const keyA = await adminKey("revoked");
    const init = await post(mcpUrl(setup.agentId), initialize(), { authorization: `Bearer ${keyA.key}` });
    const sessionId = init.headers.get("mcp-session-id") as string;
    const db = await testDb();
    const run = await db.run.findFirstOrThrow({ where: { apiKeyId: keyA.id, source: "mcp" } });
    const revoked = await api(`/v1/api_keys/${keyA.id}`, { method: "DELETE", as: await setup.tenant.as("admin") });
    expect(revoked.status).toBe(200);
    const headers = { "mcp-session-id": sessionId, "mcp-protocol-version": "2025-11-25" };
    const list = { jsonrpc: "2.0", id: 2, method: "tools/list" };
    // The key itself is refused first, as any revoked key is at this door.
    const next = await post(mcpUrl(setup.agentId), list, { ...headers, authorization: `Bearer ${keyA.key}` });
    expect(next.status).toBe(401);
    expect((await next.json()).error.data.code).toBe("unauthenticated");
    expect((await db.run.findUniqueOrThrow({ where: { id: run.id } })).status).toBe("cancelled");
    // And the session is gone for everyone: no other key can pick it up.
    const other = await post(mcpUrl(setup.agentId), list, { ...headers, authorization: `Bearer ${setup.tenant.key}` });
    expect(other.status).toBe(404);
  });

  it("refuses a browser Origin that is neither the console's nor listed, before anything is created", async () => {
    const before = await mcpRunCount(setup.agentId);
    const rebinding = await post(mcpUrl(setup.agentId), initialize(), {
      authorization: `Bearer ${setup.tenant.key}`,
      origin: "http://attacker.example:3000",
    });
    expect(rebinding.status).toBe(403);
    expect((await rebinding.json()).error.data.code).toBe("forbidden");
    expect(await mcpRunCount(setup.agentId)).toBe(before);
    const console = await post(mcpUrl(setup.agentId), initialize(), {
      authorization: `Bearer ${setup.tenant.key}`,
      origin: new URL(baseUrl).origin,
    });
    expect(console.status).toBe(200);
  });

  it("applies the per-key rate limit of /v1 with 429 and Retry-After", async () => {
    const db = await testDb();
    const key = await setup.tenant.keyWith(["runs:write"]);
    const row = await db.apiKey.findFirstOrThrow({
      where: { organizationId: setup.tenant.organizationId, name: "test runs:write" },
      orderBy: { createdAt: "desc" },
    });
    // Fill this minute's and the next minute's windows, so the check holds even if the minute turns meanwhile.
    const now = Math.floor(Date.now() / 60_000) * 60_000;
    for (const start of [now, now + 60_000]) {
      await db.rateLimitWindow.create({
        data: { key: `api:${row.id}`, windowStart: new Date(start), count: 10_000_000 },
      });
    }
    const limited = await post(mcpUrl(setup.agentId), initialize(), { authorization: `Bearer ${key}` });
    expect(limited.status).toBe(429);
    expect(Number(limited.headers.get("retry-after"))).toBeGreaterThanOrEqual(1);
    expect((await limited.json()).error.data.code).toBe("rate_limited");
  });
});

describe("what may be sent", () => {
  const auth = () => ({ authorization: `Bearer ${setup.tenant.key}` });

  it("answers the protocol's errors for malformed JSON, a batch, a non-JSON-RPC body, and a body over the limit", async () => {
    const before = await mcpRunCount(setup.agentId);
    const malformed = await post(mcpUrl(setup.agentId), "{not json", auth());
    expect([malformed.status, (await malformed.json()).error.code]).toEqual([400, -32700]);
    const batch = await post(
      mcpUrl(setup.agentId),
      [initialize(), { jsonrpc: "2.0", id: 2, method: "tools/list" }],
      auth(),
    );
    expect([batch.status, (await batch.json()).error.code]).toEqual([400, -32600]);
    const notRpc = await post(mcpUrl(setup.agentId), { hello: "world" }, auth());
    expect([notRpc.status, (await notRpc.json()).error.code]).toEqual([400, -32600]);
    const deep = await post(mcpUrl(setup.agentId), `${"[".repeat(5000)}${"]".repeat(5000)}`, auth());
    expect([deep.status, (await deep.json()).error.data.code]).toEqual([400, "json_too_deep"]);
    const huge = await post(mcpUrl(setup.agentId), { ...initialize(), padding: "x".repeat(1_100_000) }, auth());
    expect(huge.status).toBe(413);
    expect((await huge.json()).error.data.code).toBe("payload_too_large");
    expect(await mcpRunCount(setup.agentId)).toBe(before);
  });

  it("negotiates the protocol version and refuses an unsupported version header", async () => {
    const older = await post(mcpUrl(setup.agentId), initialize("2025-06-18"), auth());
    expect((await older.json()).result.protocolVersion).toBe("2025-06-18");
    const future = await post(mcpUrl(setup.agentId), initialize("2099-01-01"), auth());
    const negotiated = await future.json();
    expect(negotiated.result.protocolVersion).toBe("2025-11-25");
    const session = future.headers.get("mcp-session-id") as string;
    const wrong = await post(
      mcpUrl(setup.agentId),
      { jsonrpc: "2.0", id: 2, method: "tools/list" },
      { ...auth(), "mcp-session-id": session, "mcp-protocol-version": "2099-01-01" },
    );
    expect(wrong.status).toBe(400);
    const right = await post(
      mcpUrl(setup.agentId),
      { jsonrpc: "2.0", id: 3, method: "tools/list" },
      { ...auth(), "mcp-session-id": session, "mcp-protocol-version": "2025-11-25" },
    );
    expect(right.status).toBe(200);
    expect((await right.json()).result.tools.length).toBeGreaterThan(0);
  });

  it("refuses an unknown capabilities value, a request without a session, and GET", async () => {
    const before = await mcpRunCount(setup.agentId);
    const bad = await post(`${mcpUrl(setup.agentId)}?capabilities=admin`, initialize(), auth());
    expect(bad.status).toBe(400);
    expect((await bad.json()).error.data.code).toBe("invalid_parameter");
    const sessionless = await post(mcpUrl(setup.agentId), { jsonrpc: "2.0", id: 2, method: "tools/list" }, auth());
    expect(sessionless.status).toBe(400);
    const get = await fetch(mcpUrl(setup.agentId), { headers: { ...auth(), accept: "text/event-stream" } });
    expect(get.status).toBe(405);
    expect(await mcpRunCount(setup.agentId)).toBe(before);
  });
});

describe("sessions", () => {
  let second: Awaited<ReturnType<typeof startApp>>;
  beforeAll(async () => {
    second = await startSuiteInstance();
  });
  afterAll(async () => second?.stop());

  it("are served by any instance: opened on one, used and ended on another", async () => {
    const auth = { authorization: `Bearer ${setup.tenant.key}` };
    const init = await post(mcpUrl(setup.agentId), initialize(), auth);
    const sessionId = init.headers.get("mcp-session-id") as string;
    const headers = { ...auth, "mcp-session-id": sessionId, "mcp-protocol-version": "2025-11-25" };
    const elsewhere = `${second.baseUrl}/mcp/agents/${setup.agentId}`;
    const call = await post(
      elsewhere,
      {
        jsonrpc: "2.0",
        id: 2,
        method: "tools/call",
        params: { name: setup.crm.key("get_customer"), arguments: { customer_id: "C-1842" } },
      },
      headers,
    );
    expect(call.status).toBe(200);
    const answer = await call.json();
    expect(answer.result.structuredContent.result.customer_id).toBe("C-1842");
    const runId = answer.result.structuredContent.evidence.run as string;
    const ended = await fetch(elsewhere, { method: "DELETE", headers });
    expect(ended.status).toBe(204);
    expect((await (await testDb()).run.findUniqueOrThrow({ where: { id: runId } })).status).toBe("completed");
    const afterEnd = await post(mcpUrl(setup.agentId), { jsonrpc: "2.0", id: 3, method: "tools/list" }, headers);
    expect(afterEnd.status).toBe(404);
  });

  it("leave the same step through MCP as through POST /v1/runs/{run}/tool_calls", async () => {
    const { client } = await sdkClient(setup.agentId, setup.tenant.key);
    const viaMcp = await client.callTool({ name: "calculate", arguments: { expression: "6 * 7" } });
    const runId = (viaMcp.structuredContent as { evidence: { run: string } }).evidence.run;
    const viaRest = await api(`/v1/runs/${runId}/tool_calls`, {
      json: { tool: "calculate", arguments: { expression: "6 * 7" } },
      as: { key: setup.tenant.key },
    });
    expect(viaRest.body.ok).toBe(true);
    expect((viaMcp.structuredContent as { result: unknown }).result).toEqual(viaRest.body.result);
    const steps = await (await testDb()).step.findMany({ where: { runId }, orderBy: { createdAt: "asc" } });
    const shape = (step: (typeof steps)[number]) => ({
      tool: step.tool,
      version: step.version,
      status: step.status,
      errorCode: step.errorCode,
      argumentsSha256: step.argumentsSha256,
      retries: step.retries,
      apiKeyId: step.apiKeyId,
    });
    expect(steps).toHaveLength(2);
    expect(shape(steps[0])).toEqual(shape(steps[1]));
    await client.close();
  });

  it("stop a call the client cancels, after progress was reported", async () => {
    await crmFaults({ slow_ms: 20_000 });
    try {
      const { client } = await sdkClient(setup.agentId, setup.tenant.key);
      const controller = new AbortController();
      const progress: string[] = [];
      const call = client.callTool(
        { name: setup.crm.key("get_customer"), arguments: { customer_id: "C-1842" } },
        undefined,
        {
          signal: controller.signal,
          onprogress: (event) => {
            progress.push(event.message ?? "");
            controller.abort("the person closed the tab");
          },
        },
      );
      await expect(call).rejects.toThrow();
      expect(progress[0]).toContain("still running");
      const db = await testDb();
      const run = await db.run.findFirstOrThrow({
        where: { agentId: setup.agentId, source: "mcp" },
        orderBy: { createdAt: "desc" },
      });
      let step = null;
      for (let attempt = 0; attempt < 100 && !step; attempt++) {
        step = await db.step.findFirst({ where: { runId: run.id } });
        if (!step) await new Promise((resolve) => setTimeout(resolve, 100));
      }
      expect(step).toMatchObject({ status: "error", errorCode: "CANCELLED" });
      await client.close();
    } finally {
      await crmFaults({ slow_ms: 0 });
    }
  });
});
