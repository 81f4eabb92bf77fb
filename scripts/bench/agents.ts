import type { BenchScenario } from "./main";

// POST, PATCH and GET of /v1/agents with the demo key (agents:write), on an
// agent and a plan quota prepared once.

const bearer = (key: string) => ({ authorization: `Bearer ${key}` });
let sequence = 0;
let agentId: string | undefined;

async function benchAgent(baseUrl: string, key: string): Promise<string> {
  if (agentId) return agentId;
  // The stack's database (main.ts points this process at it before any import of lib/).
  const { db } = await import("@/lib/db");
  await db.plan.update({ where: { id: "pro" }, data: { maxAgents: 1_000_000 } });
  const response = await fetch(`${baseUrl}/v1/agents`, {
    method: "POST",
    headers: { ...bearer(key), "content-type": "application/json" },
    body: JSON.stringify({
      name: `Bench agent ${Date.now()}`,
      instructions: "Réponds brièvement.",
      tools: ["create_chart"],
    }),
  });
  if (response.status !== 201) throw new Error(`bench agent: HTTP ${response.status} ${await response.text()}`);
  agentId = ((await response.json()) as { data: { id: string } }).data.id;
  return agentId;
}

export const agentScenarios: BenchScenario[] = [
  {
    name: "POST /v1/agents (validation against the catalog, insert)",
    async prepare(stack, key) {
      await benchAgent(stack.baseUrl, key);
      return {
        method: "POST",
        path: "/v1/agents",
        headers: bearer(key),
        body: () =>
          JSON.stringify({
            name: `Bench ${process.pid}-${sequence++}`,
            instructions: "Réponds brièvement.",
            temperature: 0.25,
            tools: ["create_chart", "web_search"],
          }),
      };
    },
  },
  {
    name: "PATCH /v1/agents/{agent}",
    async prepare(stack, key) {
      const id = await benchAgent(stack.baseUrl, key);
      return {
        method: "PATCH",
        path: `/v1/agents/${id}`,
        headers: bearer(key),
        body: JSON.stringify({ temperature: 0.42, instructions: "Réponds brièvement." }),
      };
    },
  },
  {
    name: "GET /v1/agents/{agent}",
    async prepare(stack, key) {
      return { path: `/v1/agents/${await benchAgent(stack.baseUrl, key)}`, headers: bearer(key) };
    },
  },
];
