import type { APIRequestContext } from "@playwright/test";
import { expect } from "./fixtures";

// Real proposals for the approval screens: an agent run of the demo key calls CRM Acme's write tools.

/** The demo catalog's keys of CRM Acme's tools that specs call. */
export async function crmKeys(api: APIRequestContext) {
  const tools = (await (await api.get("/v1/tools")).json()).data as { key: string }[];
  const key = (name: string) => {
    const found = tools.find((t) => new RegExp(`^mcp_\\d+_${name}$`).test(t.key));
    if (!found) throw new Error(`CRM Acme tool ${name} is not in the demo catalog`);
    return found.key;
  };
  return {
    preview: key("preview_address_change"),
    commit: key("commit_address_change"),
    email: key("send_email"),
    refund: key("refund_payment"),
  };
}

/** A new agent and run with these tools; returns a function that makes one tool call in it (the run's id on it). */
export async function agentRun(api: APIRequestContext, tools: string[], name = "Approbations e2e") {
  const agent = await api.post("/v1/agents", { data: { name: `${name} ${Date.now()}`, tools } });
  expect(agent.status()).toBe(201);
  const run = await api.post("/v1/runs", { data: { agent: (await agent.json()).data.id, capabilities: "read_write" } });
  expect(run.status()).toBe(201);
  const runId: string = (await run.json()).data.id;
  const call = (tool: string, args: unknown) =>
    api.post(`/v1/runs/${runId}/tool_calls`, { data: { tool, arguments: args } }).then((r) => r.json());
  return Object.assign(call, { runId });
}
