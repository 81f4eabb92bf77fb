import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { connectCrm, createAgent, storedSteps } from "./dispatch-fixtures";
import { startMcpPeer, type McpPeer } from "./dispatch-mcp-peer";
import { createTenant, postUnendingChunkedBody, testDb, type Tenant } from "./helpers";
import { mcpUrl, sdkClient, sessionRunOf } from "./mcp-server-helpers";

// The MCP endpoint's error paths, each with its exact protocol answer and what
// is stored afterwards: a session gone idle, a message that is not valid
// Unicode, a body that never ends, ending a session that does not exist, an
// unexpected failure (said without its details), and a third-party server's
// refusal told only in text, read as a typed error.

let tenant: Tenant;
let agentId: string;
let peer: McpPeer;
let findOrder: string;

const ACCEPT = "application/json, text/event-stream";
const INITIALIZE = {
  jsonrpc: "2.0",
  id: 1,
  method: "initialize",
  params: { protocolVersion: "2025-11-25", capabilities: {}, clientInfo: { name: "errors", version: "0.1" } },
};

function headers(sessionId?: string): Record<string, string> {
  return {
    authorization: `Bearer ${tenant.key}`,
    "content-type": "application/json",
    accept: ACCEPT,
    ...(sessionId ? { "mcp-session-id": sessionId, "mcp-protocol-version": "2025-11-25" } : {}),
  };
}

async function openSession(): Promise<{ sessionId: string; runId: string }> {
  const init = await fetch(mcpUrl(agentId), { method: "POST", headers: headers(), body: JSON.stringify(INITIALIZE) });
  expect(init.status).toBe(200);
  return { sessionId: init.headers.get("mcp-session-id") as string, runId: (await sessionRunOf(agentId)).id };
}

async function mcpRunCount(): Promise<number> {
  return (await testDb()).run.count({ where: { agentId, source: "mcp" } });
}

beforeAll(async () => {
  tenant = await createTenant("pro");
  peer = await startMcpPeer();
  const server = await connectCrm(tenant, { url: peer.url, name: "Commandes" });
  findOrder = server.key("find_order");
  agentId = (await createAgent(tenant, { tools: [findOrder] })).id;
});

afterAll(async () => peer?.close());

describe("sessions", () => {
  it("end after the idle time: the run is expired and the session id answers 404", async () => {
    const { sessionId, runId } = await openSession();
    // Loaded here, after the helpers pointed the database client at the test database.
    const { MCP_SESSION_IDLE_MS } = await import("@/lib/mcp-server/session");
    await (
      await testDb()
    ).run.update({ where: { id: runId }, data: { mcpSeenAt: new Date(Date.now() - MCP_SESSION_IDLE_MS - 60_000) } });
    const late = await fetch(mcpUrl(agentId), {
      method: "POST",
      headers: headers(sessionId),
      body: JSON.stringify({ jsonrpc: "2.0", id: 2, method: "tools/list" }),
    });
    expect(late.status).toBe(404);
    expect((await late.json()).error.code).toBe(-32001);
    expect((await (await testDb()).run.findUniqueOrThrow({ where: { id: runId } })).status).toBe("expired");
  });

  it("answer 404 to a DELETE of a session that does not exist, and change nothing", async () => {
    const { runId } = await openSession();
    const unknown = await fetch(mcpUrl(agentId), { method: "DELETE", headers: headers("mcps_never-issued") });
    expect(unknown.status).toBe(404);
    expect((await unknown.json()).error.code).toBe(-32001);
    const missing = await fetch(mcpUrl(agentId), { method: "DELETE", headers: headers() });
    expect(missing.status).toBe(400);
    expect((await (await testDb()).run.findUniqueOrThrow({ where: { id: runId } })).status).toBe("active");
  });
});

describe("messages", () => {
  it("refuse a string that is not valid Unicode (a lone surrogate) before creating anything", async () => {
    const before = await mcpRunCount();
    const body = JSON.stringify(INITIALIZE).replace('"name":"errors"', '"name":"bad \\ud800 name"');
    const answer = await fetch(mcpUrl(agentId), { method: "POST", headers: headers(), body });
    expect(answer.status).toBe(400);
    const { error } = await answer.json();
    expect(error.code).toBe(-32600);
    expect(error.data.code).toBe("invalid_parameter");
    expect(await mcpRunCount()).toBe(before);
  });

  it("answer a request whose params miss a field with -32602 naming it, and run nothing", async () => {
    const { sessionId, runId } = await openSession();
    const send = async (id: number, method: string, params: unknown) =>
      (
        await fetch(mcpUrl(agentId), {
          method: "POST",
          headers: headers(sessionId),
          body: JSON.stringify({ jsonrpc: "2.0", id, method, params }),
        })
      ).json();
    expect(await send(3, "resources/read", {})).toEqual({
      jsonrpc: "2.0",
      id: 3,
      error: {
        code: -32602,
        message: expect.stringMatching(/^Invalid params: uri: /),
        data: { code: "invalid_parameter", field: "uri" },
      },
    });
    const call = await send(4, "tools/call", { arguments: {} });
    expect(call.error).toMatchObject({ code: -32602, data: { field: "name" } });
    expect(await storedSteps(runId)).toEqual([]);
  });

  it("refuse a chunked body as soon as it passes the limit, without waiting for its end", async () => {
    const before = await mcpRunCount();
    const prefix = '{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"padding":"';
    const answer = await postUnendingChunkedBody(mcpUrl(agentId), headers(), prefix, 1_100_000);
    expect(answer.status).toBe(413);
    expect(answer.body.error).toMatchObject({ code: -32000, data: { code: "payload_too_large" } });
    expect(await mcpRunCount()).toBe(before);
  });
});

describe("failures", () => {
  it('say only "Internal error." with the request id when a handler fails unexpectedly', async () => {
    const { sessionId, runId } = await openSession();
    const db = await testDb();
    // A published contract that lost its schemas: describing it throws inside the tools/list handler.
    const broken = `mcp_999999_broken_${Date.now()}`;
    await db.toolContract.create({
      data: {
        organizationId: tenant.organizationId,
        key: broken,
        version: 1,
        contract: { key: broken, note: "internal detail" },
      },
    });
    const run = await db.run.findUniqueOrThrow({ where: { id: runId } });
    await db.run.update({
      where: { id: runId },
      data: { capabilitySet: [...(run.capabilitySet as object[]), { key: broken, version: 1, effect: "read" }] },
    });
    const answer = await fetch(mcpUrl(agentId), {
      method: "POST",
      headers: headers(sessionId),
      body: JSON.stringify({ jsonrpc: "2.0", id: 7, method: "tools/list" }),
    });
    const body = await answer.json();
    expect(body).toEqual({
      jsonrpc: "2.0",
      id: 7,
      error: {
        code: -32603,
        message: "Internal error.",
        data: { code: "internal_error", request_id: answer.headers.get("x-request-id") },
      },
    });
  });

  it("read a third-party server's refusal told only in text as a typed error the model can read", async () => {
    const { client } = await sdkClient(agentId, tenant.key);
    await client.listTools();
    const refused = await client.callTool({ name: findOrder, arguments: { order_id: "42" } });
    expect(refused.isError).toBe(true);
    expect(refused.structuredContent).toEqual({
      error: {
        code: "UPSTREAM_ERROR",
        message: "The service refused the call (ERROR): Order 42 is archived; ask support.",
        retryable: false,
        field: null,
      },
    });
    expect(refused.content).toEqual([
      {
        type: "text",
        text: "UPSTREAM_ERROR: The service refused the call (ERROR): Order 42 is archived; ask support.",
      },
    ]);
    const [step] = await storedSteps((await sessionRunOf(agentId)).id);
    expect(step).toMatchObject({ tool: findOrder, status: "error", errorCode: "UPSTREAM_ERROR" });
    await client.close();
  });
});
