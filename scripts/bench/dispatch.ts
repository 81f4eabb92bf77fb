import type { BenchScenario } from "./main";

// Validated read tool calls over HTTP: POST /v1/runs/{run}/tool_calls with the
// demo key, on a run of an agent that carries CRM Acme's get_customer.

const bearer = (key: string) => ({ authorization: `Bearer ${key}` });
let runId: string | undefined;

async function post(baseUrl: string, key: string, path: string, body: unknown) {
  const response = await fetch(baseUrl + path, {
    method: "POST",
    headers: { ...bearer(key), "content-type": "application/json" },
    body: JSON.stringify(body),
  });
  if (!response.ok) throw new Error(`${path}: HTTP ${response.status} ${await response.text()}`);
  return (await response.json()) as { data: { id: string } };
}

async function benchRun(baseUrl: string, key: string): Promise<string> {
  if (runId) return runId;
  const tools = (await (await fetch(`${baseUrl}/v1/tools`, { headers: bearer(key) })).json()) as {
    data: { key: string; available: boolean }[];
  };
  const getCustomer = tools.data.find((t) => t.key.endsWith("_get_customer") && t.available);
  if (!getCustomer) throw new Error("the demo CRM's get_customer is not in the catalog");
  const agent = await post(baseUrl, key, "/v1/agents", {
    name: `Bench dispatch ${Date.now()}`,
    tools: [getCustomer.key],
  });
  runId = (await post(baseUrl, key, "/v1/runs", { agent: agent.data.id })).data.id;
  return runId;
}

export const dispatchScenarios: BenchScenario[] = [
  {
    name: "POST tool_calls calculate (validated, step + telemetry)",
    async prepare(stack, key) {
      const run = await benchRun(stack.baseUrl, key);
      return {
        method: "POST",
        path: `/v1/runs/${run}/tool_calls`,
        headers: bearer(key),
        body: JSON.stringify({ tool: "calculate", arguments: { expression: "2 * (3 + 4) ^ 2" } }),
      };
    },
  },
  {
    name: "POST tool_calls get_customer (MCP → CRM Acme)",
    async prepare(stack, key) {
      const run = await benchRun(stack.baseUrl, key);
      const tools = (await (await fetch(`${stack.baseUrl}/v1/tools`, { headers: bearer(key) })).json()) as {
        data: { key: string }[];
      };
      const tool = tools.data.find((t) => t.key.endsWith("_get_customer"))!.key;
      return {
        method: "POST",
        path: `/v1/runs/${run}/tool_calls`,
        headers: bearer(key),
        body: JSON.stringify({ tool, arguments: { customer_id: "C-1842" } }),
      };
    },
  },
];
