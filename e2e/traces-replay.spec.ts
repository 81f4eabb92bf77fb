import { expect, test } from "./fixtures";
import { openFromNav } from "./navigation";

// Traces replayed at review: an agent with tracing on makes calls to CRM Acme's
// get_customer; the service then changes the tool (CRM Acme's schema variant 3:
// `include` becomes required and its enum loses "orders_count"); after a sync,
// the tool's review card in « Connecteurs MCP » says how many of the recorded
// calls the new version would refuse, and where, before anyone approves it.

async function crmSchemaVariant(crmBaseUrl: string, variant: 1 | 3) {
  const response = await fetch(`${crmBaseUrl}/__control/faults`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ tool_schema_variant: variant }),
  });
  expect(response.ok).toBe(true);
}

test("a CRM Acme schema change shows, in the review, how many recorded calls it would refuse", async ({
  pageAs,
  api,
  stack,
  shot,
}) => {
  const page = await pageAs("admin");
  // A connector of its own on the same CRM Acme, so the demo one stays as the other specs expect it.
  const name = `CRM traces ${Date.now()}`;
  const created = await page.request.post("/v1/mcp_servers", {
    data: { name, url: stack.crmUrl, auth: "none", active: true },
  });
  expect(created.status()).toBe(201);
  const serverId = (await created.json()).data.id as number;
  expect((await page.request.post(`/v1/mcp_servers/${serverId}/sync`)).status()).toBe(200);
  // Reviewed as an admin would, every tool as its annotations suggest.
  const tools = (await (await page.request.get(`/v1/mcp_servers/${serverId}/tools`)).json()).data as {
    name: string;
    fingerprint: string;
    suggested_writes_data: boolean;
  }[];
  for (const tool of tools) {
    const reviewed = await page.request.patch(`/v1/mcp_servers/${serverId}/tools/${tool.name}`, {
      data: { reviewed: true, fingerprint: tool.fingerprint, writes_data: tool.suggested_writes_data },
    });
    expect(reviewed.status()).toBe(200);
  }

  // Tracing is an admin's choice, made in their session; the runs are an agent runtime's, with the API key.
  const key = `mcp_${serverId}_get_customer`;
  const agent = await page.request.post("/v1/agents", {
    data: { name: `Agent tracé ${Date.now()}`, tools: [key], trace: "redacted" },
  });
  expect(agent.status()).toBe(201);
  const run = await api.post("/v1/runs", { data: { agent: (await agent.json()).data.id } });
  expect(run.status()).toBe(201);
  const runId = (await run.json()).data.id as string;
  const call = async (args: unknown) =>
    (await (await api.post(`/v1/runs/${runId}/tool_calls`, { data: { tool: key, arguments: args } })).json()) as {
      ok: boolean;
      error?: { code: string };
    };
  for (const customer of ["C-1842", "C-2001", "C-3003"]) expect((await call({ customer_id: customer })).ok).toBe(true);
  // Refused when made: recorded, but not one of the calls a new version is judged on.
  expect((await call({ customer_id: 1842 })).error?.code).toBe("INVALID_ARGUMENTS");

  await crmSchemaVariant(stack.crmBaseUrl, 3);
  try {
    await openFromNav(page, "Connecteurs MCP");
    const row = page.locator(`tr[data-server="${name}"]`);
    await row.getByRole("button", { name: `Synchroniser ${name}` }).click();
    await expect(row).toContainText("1 à revoir");
    await row.getByRole("button", { name: `Outils et revue de ${name}` }).click();
    const drawer = page.getByRole("dialog", { name: `Outils de ${name}` });
    const card = drawer.locator('li[data-tool-name="get_customer"]');
    await expect(card).toContainText("À revoir");
    const summary = card.getByTestId("replay-summary");
    await expect(summary).toContainText("Cette version refuserait 3 des 3 appels enregistrés.");
    await expect(summary.getByRole("listitem")).toHaveText([
      "/include : INVALID_ARGUMENTS",
      "/include : INVALID_ARGUMENTS",
      "/include : INVALID_ARGUMENTS",
    ]);
    await summary.scrollIntoViewIfNeeded();
    await shot(page, "connecteurs-revue-rejeu-traces");
    // Nothing was approved by looking: the tool still waits for its review.
    const after = (await (await page.request.get(`/v1/mcp_servers/${serverId}/tools`)).json()).data as {
      name: string;
      status: string;
    }[];
    expect(after.find((t) => t.name === "get_customer")?.status).toBe("needs_review");
  } finally {
    await crmSchemaVariant(stack.crmBaseUrl, 1);
  }
});
