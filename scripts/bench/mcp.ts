import { percentile } from "./stats";
import { performance } from "node:perf_hooks";
import type { BenchScenario } from "./main";

// The same tool calls through /mcp/agents/{agent} and through
// POST /v1/runs/{run}/tool_calls, on the same run: the MCP session's own run,
// which the REST path can call too. The MCP path adds the SDK server, the
// transport and the session lookup; the figures show what that costs.

const bearer = (key: string) => ({ authorization: `Bearer ${key}` });
const ACCEPT = "application/json, text/event-stream";
let session: Promise<{ agentId: string; sessionId: string; runId: string; crmTool: string }> | undefined;

async function openSession(baseUrl: string, key: string) {
  const tools = (await (await fetch(`${baseUrl}/v1/tools`, { headers: bearer(key) })).json()) as {
    data: { key: string; available: boolean }[];
  };
  const crmTool = tools.data.find((t) => t.key.endsWith("_get_customer") && t.available)?.key;
  if (!crmTool) throw new Error("the demo CRM's get_customer is not in the catalog");
  const agent = await fetch(`${baseUrl}/v1/agents`, {
    method: "POST",
    headers: { ...bearer(key), "content-type": "application/json" },
    body: JSON.stringify({ name: `Bench MCP ${Date.now()}`, tools: [crmTool] }),
  });
  const agentId = ((await agent.json()) as { data: { id: string } }).data.id;
  const url = `${baseUrl}/mcp/agents/${agentId}`;
  const init = await fetch(url, {
    method: "POST",
    headers: { ...bearer(key), "content-type": "application/json", accept: ACCEPT },
    body: JSON.stringify({
      jsonrpc: "2.0",
      id: 1,
      method: "initialize",
      params: { protocolVersion: "2025-11-25", capabilities: {}, clientInfo: { name: "bench", version: "1" } },
    }),
  });
  const sessionId = init.headers.get("mcp-session-id");
  if (!sessionId) throw new Error(`initialize: HTTP ${init.status} ${await init.text()}`);
  const probe = await fetch(url, {
    method: "POST",
    headers: sessionHeaders(key, sessionId),
    body: toolCall("calculate", { expression: "1 + 1" }),
  });
  const runId = ((await probe.json()) as { result: { structuredContent: { evidence: { run: string } } } }).result
    .structuredContent.evidence.run;
  return { agentId, sessionId, runId, crmTool };
}

export function sessionHeaders(key: string, sessionId: string): Record<string, string> {
  return {
    ...bearer(key),
    "content-type": "application/json",
    accept: ACCEPT,
    "mcp-session-id": sessionId,
    "mcp-protocol-version": "2025-11-25",
  };
}

export function toolCall(name: string, args: Record<string, unknown>): string {
  return JSON.stringify({ jsonrpc: "2.0", id: 2, method: "tools/call", params: { name, arguments: args } });
}

/** The API-key session every MCP measure shares (one agent with CRM Acme's get_customer). */
export function benchSession(baseUrl: string, key: string) {
  return (session ??= openSession(baseUrl, key));
}

const CALLS = [
  { label: "calculate", tool: () => "calculate", args: { expression: "2 * (3 + 4) ^ 2" } },
  { label: "get_customer (CRM Acme)", tool: (crmTool: string) => crmTool, args: { customer_id: "C-1842" } },
];

const restName = (label: string) => `REST tool_calls ${label} (the MCP session's run)`;

// The target: the MCP path's p50 at most 1.3 times the REST path's.
export const mcpScenarios: BenchScenario[] = CALLS.flatMap((call) => [
  {
    name: restName(call.label),
    async prepare(stack, key) {
      const { runId, crmTool } = await (session ??= openSession(stack.baseUrl, key));
      return {
        method: "POST",
        path: `/v1/runs/${runId}/tool_calls`,
        headers: bearer(key),
        body: JSON.stringify({ tool: call.tool(crmTool), arguments: call.args }),
      };
    },
  } satisfies BenchScenario,
  {
    name: `MCP tools/call ${call.label} (same run)`,
    comparedTo: restName(call.label),
    async prepare(stack, key) {
      const { agentId, sessionId, crmTool } = await (session ??= openSession(stack.baseUrl, key));
      return {
        method: "POST",
        path: `/mcp/agents/${agentId}`,
        headers: sessionHeaders(key, sessionId),
        body: toolCall(call.tool(crmTool), call.args),
      };
    },
  } satisfies BenchScenario,
]);

/**
 * The same pairs without HTTP and without the other connections' queueing:
 * each iteration calls the MCP endpoint's handler and the REST route's handler
 * once, in this process, on the session's run, so both see the same machine.
 * A loaded machine moves autocannon's p50s a lot; this ratio much less.
 */
export async function measureMcpInProcess(
  baseUrl: string,
  key: string,
  iterations: number,
): Promise<{ label: string; mcp_p50_ms: number; rest_p50_ms: number; ratio: number }[]> {
  const { agentId, sessionId, runId, crmTool } = await (session ??= openSession(baseUrl, key));
  const { handleMcpRequest } = await import("@/lib/mcp-server/endpoint");
  const { POST } = await import("@/app/v1/runs/[run]/tool_calls/route");
  const figures = [];
  for (const call of CALLS) {
    const viaMcp = async () => {
      const request = new Request(`${baseUrl}/mcp/agents/${agentId}`, {
        method: "POST",
        headers: sessionHeaders(key, sessionId),
        body: toolCall(call.tool(crmTool), call.args),
      });
      const answer = (await (await handleMcpRequest(request, agentId)).json()) as { result?: { isError?: boolean } };
      if (!answer.result || answer.result.isError) throw new Error(`MCP ${call.label}: ${JSON.stringify(answer)}`);
    };
    const viaRest = async () => {
      const request = new Request(`${baseUrl}/v1/runs/${runId}/tool_calls`, {
        method: "POST",
        headers: { ...bearer(key), "content-type": "application/json" },
        body: JSON.stringify({ tool: call.tool(crmTool), arguments: call.args }),
      });
      const answer = (await (await POST(request, { params: Promise.resolve({ run: runId }) })).json()) as {
        ok?: boolean;
      };
      if (!answer.ok) throw new Error(`REST ${call.label}: ${JSON.stringify(answer)}`);
    };
    const mcp: number[] = [];
    const rest: number[] = [];
    for (let i = 0; i < iterations + 10; i++) {
      let started = performance.now();
      await viaMcp();
      if (i >= 10) mcp.push(performance.now() - started);
      started = performance.now();
      await viaRest();
      if (i >= 10) rest.push(performance.now() - started);
    }
    figures.push({
      label: call.label,
      mcp_p50_ms: percentile(mcp, 0.5),
      rest_p50_ms: percentile(rest, 0.5),
      ratio: Math.round((percentile(mcp, 0.5) / percentile(rest, 0.5)) * 100) / 100,
    });
  }
  return figures;
}
