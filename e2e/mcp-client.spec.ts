import { expect, test } from "./fixtures";
import { openAgentDrawer } from "./navigation";

// The agent drawer's "Connecter un client MCP" section: the URL it shows is the
// agent's live MCP endpoint (an MCP initialize through it opens a session), and
// each tested client has its configuration ready to copy.

test("the agent drawer shows the MCP endpoint and the client configurations", async ({ pageAs, api, shot }) => {
  const name = `Agent MCP e2e ${Date.now()}`;
  const created = await api.post("/v1/agents", { data: { name } });
  expect(created.status()).toBe(201);
  const agentId = (await created.json()).data.id as string;

  const page = await pageAs("dev");
  const section = (await openAgentDrawer(page, name)).getByTestId("mcp-client-section");
  await section.getByRole("heading", { name: "Connecter un client MCP" }).scrollIntoViewIfNeeded();
  const url = (await section.getByTestId("mcp-url").textContent()) ?? "";
  expect(url.endsWith(`/mcp/agents/${agentId}`)).toBe(true);
  for (const client of ["@modelcontextprotocol/sdk", "@openai/agents", "@ai-sdk/mcp", "@langchain/mcp-adapters"]) {
    await expect(section.getByRole("heading", { name: new RegExp(client.replace(/[/]/g, "\\/")) })).toBeVisible();
  }
  await expect(section.locator("pre").first()).toContainText(`${url}?capabilities=read_write`);
  await shot(page, "agents-drawer-mcp-client");

  // The URL shown is the real endpoint: an MCP client initializing through it gets a session.
  const initialize = await api.post(new URL(url).pathname, {
    headers: { accept: "application/json, text/event-stream", "content-type": "application/json" },
    data: {
      jsonrpc: "2.0",
      id: 1,
      method: "initialize",
      params: { protocolVersion: "2025-11-25", capabilities: {}, clientInfo: { name: "e2e", version: "1" } },
    },
  });
  expect(initialize.status()).toBe(200);
  expect(initialize.headers()["mcp-session-id"]).toMatch(/^mcps_/);
  expect((await initialize.json()).result.serverInfo.name).toBe("guichet");
});
