import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { afterAll, beforeAll, expect, it } from "vitest";
import { connectCrm, createAgent, storedSteps, type ConnectedCrm } from "./dispatch-fixtures";
import { api, createTenant, crmFaults, type Tenant } from "./helpers";
import { mcpUrl, sessionRunOf } from "./mcp-server-helpers";

// The MCP door's progress stream on the data plane (the suite's server answers
// bearer calls there), with a client whose connection drops mid-stream: no
// cancellation message, just a closed socket. The call ends with its step
// written, the session and its run go on, and the server keeps answering.
// (The SSE run stream's hang-up is tests/api/managed-runs-stream.test.ts.)

let tenant: Tenant;
let crm: ConnectedCrm;

beforeAll(async () => {
  tenant = await createTenant("pro");
  crm = await connectCrm(tenant);
});

afterAll(async () => crmFaults({ slow_ms: 0 }));

it("ends a tool call whose client dropped the progress stream, and the session goes on", async () => {
  const agent = await createAgent(tenant, { tools: [crm.key("get_customer")] });
  // The transport's fetch, whose connection this test can cut (undici destroys the socket on abort).
  let cut: AbortController | null = null;
  const transport = new StreamableHTTPClientTransport(new URL(mcpUrl(agent.id)), {
    requestInit: { headers: { authorization: `Bearer ${tenant.key}` } },
    fetch: (url, init) => {
      const body = typeof init?.body === "string" ? init.body : "";
      if (!body.includes('"tools/call"')) return fetch(url, init);
      cut = new AbortController();
      return fetch(url, { ...init, signal: cut.signal });
    },
  });
  const client = new Client({ name: "data-plane-streams", version: "1.0.0" });
  await client.connect(transport);
  await crmFaults({ slow_ms: 4000 });
  const progress: string[] = [];
  const dropped = client
    .callTool({ name: crm.key("get_customer"), arguments: { customer_id: "C-1842" } }, undefined, {
      timeout: 30_000,
      onprogress: (event) => {
        progress.push(event.message ?? "");
        cut?.abort();
      },
    })
    .then(
      () => "answered",
      () => "failed",
    );
  // The client never hears the answer: its connection is gone.
  expect(await Promise.race([dropped, new Promise((resolve) => setTimeout(() => resolve("pending"), 8000))])).not.toBe(
    "answered",
  );
  expect(progress.length).toBeGreaterThan(0);
  const run = await sessionRunOf(agent.id);
  // The call still ends on the server, its step written (whatever its outcome), nothing left hanging.
  let steps = await storedSteps(run.id);
  for (let i = 0; i < 100 && steps.length === 0; i++) {
    await new Promise((resolve) => setTimeout(resolve, 100));
    steps = await storedSteps(run.id);
  }
  expect(steps).toHaveLength(1);
  await crmFaults({ slow_ms: 0 });
  // The session and its run go on: the next call on the same session is served and recorded on the same run.
  const next = await client.callTool({ name: crm.key("get_customer"), arguments: { customer_id: "C-1842" } });
  expect(next.isError).toBeFalsy();
  expect(await storedSteps(run.id)).toHaveLength(2);
  expect((await api(`/v1/runs/${run.id}`, { as: { key: tenant.key } })).body.data.status).toBe("active");
  await client.close();
});
