import { randomBytes } from "node:crypto";
import http from "node:http";
import { afterAll, beforeAll, expect, it } from "vitest";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { createScript } from "@/connectors/model-sim/control";
import { signIn, until, type Caller } from "./helpers";
import { call, connectCrmWithToken, startObservedStack, type ObservedStack } from "./observability-stack";

// OpenTelemetry: an instance with the standard variables exports its spans over
// OTLP/HTTP (JSON) to a receiver in this process. A managed run that writes
// through CRM Acme, waits for approval and commits after it gives one trace
// under the caller's traceparent; the trace goes on to CRM Acme (headers and
// MCP `_meta`) and to the model provider. Secrets planted everywhere they could
// leak (the provider key, the MCP token, argument values, the prompt, the
// model's answer) appear in no exported byte.

interface OtlpSpan {
  /** 1 internal, 2 server, 3 client. */
  kind: number;
  traceId: string;
  spanId: string;
  parentSpanId?: string;
  name: string;
  attributes: Record<string, unknown>;
}

const exports: string[] = [];
const spans: OtlpSpan[] = [];
let receiver: http.Server;
let stack: ObservedStack;
let admin: Caller;
let serverId: number;
const tag = randomBytes(5).toString("hex");
const planted = {
  providerKey: `sk-planted-${tag}`,
  mcpToken: `mcp-token-planted-${tag}`,
  argument: `C-PLANTED-${tag}`,
  prompt: `Prompt planté ${tag}`,
  answer: `Réponse plantée ${tag}`,
};

function attributeValue(value: Record<string, unknown>): unknown {
  return value.stringValue ?? value.intValue ?? value.boolValue ?? value.doubleValue;
}

function collect(text: string): void {
  exports.push(text);
  const body = JSON.parse(text) as {
    resourceSpans: {
      scopeSpans: {
        spans: (Omit<OtlpSpan, "attributes"> & { attributes?: { key: string; value: Record<string, unknown> }[] })[];
      }[];
    }[];
  };
  for (const resource of body.resourceSpans)
    for (const scope of resource.scopeSpans)
      for (const span of scope.spans)
        spans.push({
          ...span,
          attributes: Object.fromEntries((span.attributes ?? []).map((a) => [a.key, attributeValue(a.value)])),
        });
}

beforeAll(async () => {
  receiver = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (chunk: Buffer) => chunks.push(chunk));
    req.on("end", () => {
      if (req.url === "/v1/traces") collect(Buffer.concat(chunks).toString("utf8"));
      res.writeHead(200, { "content-type": "application/json" }).end("{}");
    });
  });
  await new Promise<void>((resolve) => receiver.listen(0, "127.0.0.1", resolve));
  const { port } = receiver.address() as { port: number };
  stack = await startObservedStack(
    {
      OTEL_EXPORTER_OTLP_ENDPOINT: `http://127.0.0.1:${port}`,
      OTEL_EXPORTER_OTLP_PROTOCOL: "http/json",
      OTEL_SERVICE_NAME: "guichet-traces-test",
      OTEL_BSP_SCHEDULE_DELAY: "100",
    },
    planted.providerKey,
  );
  admin = await signIn("admin@acme.test", "guichet-demo", stack.baseUrl);
}, 180_000);

afterAll(async () => {
  await stack?.stop();
  await new Promise((resolve) => receiver?.close(resolve));
});

const hex = (bytes: number) => randomBytes(bytes).toString("hex");

/** The span's ancestors in the trace, nearest first, and the first parent id no exported span has. */
function ancestry(span: OtlpSpan): { names: string[]; remoteParent: string | undefined } {
  const names: string[] = [];
  let current: OtlpSpan = span;
  for (;;) {
    const parentId: string | undefined = current.parentSpanId || undefined;
    const parent: OtlpSpan | undefined = parentId
      ? spans.find((s) => s.spanId === parentId && s.traceId === span.traceId)
      : undefined;
    if (!parent) return { names, remoteParent: parentId };
    names.push(parent.name);
    current = parent;
  }
}

const named = (prefix: string, traceId: string) =>
  spans.filter((span) => span.traceId === traceId && span.name.startsWith(prefix));

it("exports a managed run's span tree under the caller's traceparent, and carries the trace upstream", async () => {
  serverId = await connectCrmWithToken(stack, admin, planted.mcpToken);
  const key = (tool: string) => `mcp_${serverId}_${tool}`;
  const agent = await call(stack.baseUrl, "/v1/agents", {
    json: {
      name: `Traces ${tag}`,
      tools: [key("get_customer"), key("preview_address_change"), key("commit_address_change")],
    },
    as: { key: stack.demoKey },
  });
  expect(agent.status).toBe(201);
  const script = await createScript(stack.sim.baseUrl, {
    turns: [
      {
        tool_calls: [{ name: key("get_customer"), arguments: { customer_id: planted.argument } }],
        usage: { prompt_tokens: 41, completion_tokens: 7 },
      },
      {
        tool_calls: [
          {
            name: key("preview_address_change"),
            arguments: { customer_id: "C-1842", destination: { kind: "saved", address_id: "ADDR-2" } },
          },
        ],
      },
      { text: planted.answer },
    ],
  });
  const traceId = hex(16);
  const runParent = hex(8);
  const started = await call(stack.baseUrl, "/v1/runs", {
    json: {
      agent: agent.body.data.id,
      input: planted.prompt,
      instructions: script.marker,
      capabilities: "read_write",
      wait: 60,
    },
    as: { key: stack.demoKey },
    headers: { traceparent: `00-${traceId}-${runParent}-01` },
  });
  expect(started.status).toBe(201);
  expect(started.body.data.status).toBe("requires_approval");
  const runId = started.body.data.id as string;
  const proposalId = started.body.data.pending_proposals[0] as string;

  // Before anyone decides, the first stretch has ended and the resume job its pause enqueued has run (and
  // found the proposal pending). That job holds the run's `decided:` singleton key while it waits for a
  // worker: a decision made before it ran would fold into it, and the resume would go on under the run's
  // request instead of the approval's.
  await until(
    async () =>
      named("invoke_agent", traceId).some((s) => s.attributes["guichet.run.status"] === "requires_approval") &&
      named("job run.resume", traceId).some((s) => ancestry(s).names.includes("POST /v1/runs"))
        ? true
        : null,
    "the first stretch of the run to end and its resume check to run",
  );

  // The approval comes from another request of the same trace (the approval screen's).
  const approver = await signIn("approver@acme.test", "guichet-demo", stack.baseUrl);
  const proposal = await call(stack.baseUrl, `/v1/proposals/${proposalId}`, { as: approver });
  const approvalParent = hex(8);
  const approved = await call(stack.baseUrl, `/v1/proposals/${proposalId}/approve`, {
    json: { arguments_sha256: proposal.body.data.arguments_sha256 },
    as: approver,
    headers: { traceparent: `00-${traceId}-${approvalParent}-01` },
  });
  expect(approved.status).toBe(200);
  await until(async () => {
    const state = await call(stack.baseUrl, `/v1/runs/${runId}`, { as: { key: stack.demoKey } });
    return state.body.data.status === "completed" ? state : null;
  }, "the run to resume and complete");
  // Every span has ended once the resumed loop's span is exported.
  await until(async () => (named("invoke_agent", traceId).length >= 2 ? true : null), "both stretches of the run");

  // The request's span continues the caller's trace; the run, its model calls and its tools are below it.
  const runRequest = spans.find((s) => s.traceId === traceId && s.name === "POST /v1/runs");
  expect(runRequest).toMatchObject({ attributes: { "http.route": "/v1/runs", "http.response.status_code": 201 } });
  expect(ancestry(runRequest!).remoteParent).toBe(runParent);
  const stretches = named("invoke_agent", traceId);
  expect(stretches).toHaveLength(2);
  const [first, resumed] = stretches.sort((a) => (a.attributes["guichet.run.status"] === "requires_approval" ? -1 : 1));
  expect(first.attributes).toMatchObject({
    "gen_ai.operation.name": "invoke_agent",
    "guichet.run.id": runId,
    "guichet.run.status": "requires_approval",
  });
  expect(ancestry(first).names).toContain("POST /v1/runs");

  const chats = named("chat ", traceId);
  expect(chats.length).toBe(3);
  const firstChat = chats.find(
    (s) => s.attributes["gen_ai.usage.input_tokens"] === 41 || s.attributes["gen_ai.usage.input_tokens"] === "41",
  );
  expect(firstChat?.attributes).toMatchObject({ "gen_ai.operation.name": "chat", "gen_ai.provider.name": "mistral" });
  expect(String(firstChat?.attributes["gen_ai.usage.output_tokens"])).toBe("7");
  expect(ancestry(firstChat!).names[0]).toMatch(/^invoke_agent /);

  const read = named(`execute_tool ${key("get_customer")}`, traceId)[0];
  expect(read.attributes).toMatchObject({ "gen_ai.tool.name": key("get_customer"), "guichet.decision": "refused" });
  expect(String(read.attributes["guichet.tool.version"])).toBe("1");
  expect(read.attributes["guichet.error.code"]).toEqual(expect.any(String));
  const preview = named(`execute_tool ${key("preview_address_change")}`, traceId)[0];
  expect(preview.attributes).toMatchObject({ "guichet.proposal.id": proposalId });
  expect(["proposed", "pending_approval"]).toContain(preview.attributes["guichet.decision"]);
  const upstream = named(`tools/call preview_address_change`, traceId)[0];
  expect(upstream.attributes).toMatchObject({
    "mcp.method.name": "tools/call",
    "gen_ai.tool.name": "preview_address_change",
  });
  expect(upstream.parentSpanId).toBe(preview.spanId);

  // The approval, then the resumed run and its commit, under the approval's request.
  const approval = named("guichet.proposal.approve", traceId)[0];
  expect(approval.attributes).toMatchObject({ "guichet.proposal.id": proposalId, "guichet.decision": "approve" });
  expect(ancestry(approval).names).toContain("POST /v1/proposals/{proposal}/approve");
  expect(ancestry(approval).remoteParent).toBe(approvalParent);
  expect(resumed.attributes).toMatchObject({ "guichet.run.id": runId, "guichet.run.status": "completed" });
  expect(ancestry(resumed).remoteParent).toBe(approvalParent);
  const commit = named("guichet.proposal.commit", traceId)[0];
  expect(commit.attributes).toMatchObject({
    "guichet.proposal.id": proposalId,
    "gen_ai.tool.name": key("commit_address_change"),
  });
  // The resume job commits the approved write, then its loop goes on: both under the job's span.
  expect(ancestry(commit).names.find((name) => name.startsWith("job "))).toBeDefined();
  expect(ancestry(commit).remoteParent).toBe(approvalParent);
  expect(named("tools/call commit_address_change", traceId)).toHaveLength(1);

  // The trace went on to CRM Acme (header and _meta of tools/call) and to the model provider.
  const crmCalls = stack.crmProxy.seen.filter((r) => r.metaTraceparent !== null);
  // The preview and the commit (the planted read is refused before it leaves).
  expect(crmCalls.length).toBeGreaterThanOrEqual(2);
  for (const request of crmCalls) {
    expect(request.metaTraceparent).toMatch(new RegExp(`^00-${traceId}-[0-9a-f]{16}-01$`));
    expect(request.traceparent).toMatch(new RegExp(`^00-${traceId}-`));
  }
  const modelCalls = stack.simProxy.seen.filter((r) => r.path.endsWith("/chat/completions"));
  expect(modelCalls).toHaveLength(3);
  for (const request of modelCalls) expect(request.traceparent).toMatch(new RegExp(`^00-${traceId}-`));
  // The planted secrets did travel where they belong (so their absence below means something).
  expect(stack.crmProxy.seen.some((r) => r.authorization === `Bearer ${planted.mcpToken}`)).toBe(true);
  expect(stack.simProxy.seen.some((r) => r.authorization === `Bearer ${planted.providerKey}`)).toBe(true);
});

it("continues the trace an MCP client sends in params._meta, down to CRM Acme", async () => {
  const tool = `mcp_${serverId}_get_customer`;
  const agent = await call(stack.baseUrl, "/v1/agents", {
    json: { name: `Traces MCP ${tag}`, tools: [tool] },
    as: { key: stack.demoKey },
  });
  expect(agent.status).toBe(201);
  const transport = new StreamableHTTPClientTransport(new URL(`${stack.baseUrl}/mcp/agents/${agent.body.data.id}`), {
    requestInit: { headers: { authorization: `Bearer ${stack.demoKey}` } },
  });
  const client = new Client({ name: "traces-test", version: "1.0.0" });
  await client.connect(transport);
  const traceId = hex(16);
  const parent = hex(8);
  try {
    const listed = await client.listTools();
    const name = listed.tools.map((t) => t.name).find((n) => n.includes("get_customer"))!;
    const seenBefore = stack.crmProxy.seen.length;
    const result = await client.callTool({
      name,
      arguments: { customer_id: "C-1842" },
      _meta: { traceparent: `00-${traceId}-${parent}-01` },
    });
    expect(result.isError).toBeFalsy();
    const served = await until(
      async () => spans.find((s) => s.traceId === traceId && s.name === `tools/call ${name}` && s.kind === 2) ?? null,
      "the MCP server span",
    );
    expect(served.attributes).toMatchObject({ "mcp.method.name": "tools/call", "gen_ai.tool.name": name });
    expect(served.parentSpanId).toBe(parent);
    const dispatched = await until(
      async () => named(`execute_tool ${tool}`, traceId).find((s) => s.parentSpanId === served.spanId) ?? null,
      "the dispatched call under it",
    );
    expect(dispatched.attributes).toMatchObject({ "guichet.decision": "executed" });
    // Other calls may reach CRM Acme meanwhile (another test's run going on): this trace's, exactly once.
    const upstream = stack.crmProxy.seen.slice(seenBefore).filter((r) => r.metaTraceparent?.includes(traceId));
    expect(upstream).toHaveLength(1);
    expect(upstream[0].metaTraceparent).toMatch(new RegExp(`^00-${traceId}-`));
  } finally {
    await client.close();
  }
});

it("exports no argument, prompt, answer, key or token in any span", () => {
  expect(spans.length).toBeGreaterThan(20);
  const everything = exports.join("\n");
  for (const [what, secret] of Object.entries(planted)) {
    expect(everything.includes(secret), `${what} in an exported span`).toBe(false);
  }
  expect(everything.includes(stack.demoKey)).toBe(false);
});
