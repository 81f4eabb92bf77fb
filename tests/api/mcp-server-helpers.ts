import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { expect } from "vitest";
import { baseUrl, testDb } from "./helpers";
import { approve, crmCustomer, crmOperationsOf, getProposal, type CrmSetup } from "./proposals-helpers";

// What every MCP client journey shares: the endpoint URL, the official SDK
// client for arranging, and the checks on what Guichet and CRM Acme stored.

export function mcpUrl(agentId: string, capabilities?: "read" | "read_write"): string {
  return `${baseUrl}/mcp/agents/${agentId}${capabilities ? `?capabilities=${capabilities}` : ""}`;
}

export async function sdkClient(
  agentId: string,
  key: string,
  capabilities?: "read" | "read_write",
  name = "guichet-tests",
): Promise<{ client: Client; transport: StreamableHTTPClientTransport }> {
  const transport = new StreamableHTTPClientTransport(new URL(mcpUrl(agentId, capabilities)), {
    requestInit: { headers: { authorization: `Bearer ${key}` } },
  });
  const client = new Client({ name, version: "1.2.3" });
  await client.connect(transport);
  return { client, transport };
}

/** The MCP session's run, found as any instance would: by the agent, newest first. */
export async function sessionRunOf(agentId: string) {
  const db = await testDb();
  return db.run.findFirstOrThrow({ where: { agentId, source: "mcp" }, orderBy: { createdAt: "desc" } });
}

/** A signed-in approver approves the exact hash the card's proposal carries, through /v1. */
export async function approveCard(setup: CrmSetup, proposalId: string): Promise<void> {
  const approved = await approve(setup.tenant, proposalId, "approver");
  expect(approved.status).toBe(200);
  expect(approved.body.data.status).toBe("approved");
}

/** After a journey: CRM Acme changed C-1842 exactly once, under this run's key, and the proposal is consumed. */
export async function expectOneAddressChange(setup: CrmSetup, runId: string, proposalId: string): Promise<void> {
  const customer = await crmCustomer("C-1842");
  expect(customer).toMatchObject({ version: 18, shipping_address: { line1: "24 quai Saint-Antoine", city: "Lyon" } });
  const operations = await crmOperationsOf(runId);
  expect(operations).toHaveLength(1);
  expect((await getProposal(setup.tenant, proposalId)).status).toBe("consumed");
}

export const PREVIEW_ARGS = { customer_id: "C-1842", destination: { kind: "saved", address_id: "ADDR-2" } };
