import { createMCPClient } from "@ai-sdk/mcp";
import { MultiServerMCPClient } from "@langchain/mcp-adapters";
import { MCPServerStreamableHttp } from "@openai/agents";
import { beforeAll, beforeEach, describe, expect, it } from "vitest";
import { createTenant } from "./helpers";
import { crmCustomer, resetCrm, setupCrm, type CrmSetup } from "./proposals-helpers";
import { approveCard, expectOneAddressChange, mcpUrl, PREVIEW_ARGS, sessionRunOf } from "./mcp-server-helpers";

// The same journey through three agent frameworks' own MCP clients, as their
// users would wire them to Guichet: one URL and an API key. No model is
// involved: each framework's tool objects are called directly. Refusals and
// proposal cards are read from what the framework hands a model.

let setup: CrmSetup;
const PROPOSAL_ID = /prop_[0-9a-z]{26}/;

beforeAll(async () => {
  setup = await setupCrm(await createTenant("pro"));
});
beforeEach(resetCrm);

function textOf(result: unknown): string {
  if (typeof result === "string") return result;
  return JSON.stringify(result);
}

describe("@openai/agents MCPServerStreamableHttp", () => {
  it("lists, reads, is refused, previews, and commits the approved proposal", async () => {
    const server = new MCPServerStreamableHttp({
      url: mcpUrl(setup.agentId, "read_write"),
      name: "guichet",
      requestInit: { headers: { authorization: `Bearer ${setup.tenant.key}` } },
    });
    await server.connect();
    try {
      const names = (await server.listTools()).map((tool) => tool.name);
      expect(names).toContain(setup.crm.key("get_customer"));
      const read = await server.callToolResult(setup.crm.key("get_customer"), { customer_id: "C-1842" });
      expect(read.structuredContent).toMatchObject({ result: { customer_id: "C-1842", version: 17 } });
      const refused = await server.callToolResult(setup.crm.key("get_customer"), { customer_id: "nope" });
      expect(refused.isError).toBe(true);
      expect(refused.structuredContent).toMatchObject({ error: { code: "INVALID_ARGUMENTS", field: "/customer_id" } });
      const preview = await server.callTool(setup.crm.key("preview_address_change"), PREVIEW_ARGS);
      const proposalId = PROPOSAL_ID.exec(textOf(preview))?.[0] as string;
      expect(proposalId).toBeTruthy();
      await approveCard(setup, proposalId);
      const committed = await server.callToolResult(setup.crm.key("commit_address_change"), {
        proposal_id: proposalId,
      });
      expect(committed.structuredContent).toMatchObject({ result: { new_version: 18 } });
      const run = await sessionRunOf(setup.agentId);
      expect(run.clientName).toBeTruthy();
      await expectOneAddressChange(setup, run.id, proposalId);
    } finally {
      await server.close();
    }
  });
});

describe("the Vercel AI SDK MCP client (@ai-sdk/mcp)", () => {
  it("gets tools(), executes a read, a refused call, a preview and the commit", async () => {
    const client = await createMCPClient({
      transport: {
        type: "http",
        url: mcpUrl(setup.agentId, "read_write"),
        headers: { authorization: `Bearer ${setup.tenant.key}` },
      },
    });
    try {
      const tools = await client.tools();
      const execute = (name: string, args: Record<string, unknown>) =>
        tools[setup.crm.key(name)].execute(args, { toolCallId: `call-${name}`, messages: [] });
      const read = await execute("get_customer", { customer_id: "C-1842" });
      expect(read).toMatchObject({ structuredContent: { result: { customer_id: "C-1842", version: 17 } } });
      const refused = await execute("get_customer", { customer_id: "nope" });
      expect(refused).toMatchObject({ isError: true, structuredContent: { error: { code: "INVALID_ARGUMENTS" } } });
      const preview = await execute("preview_address_change", PREVIEW_ARGS);
      const proposalId = PROPOSAL_ID.exec(textOf(preview))?.[0] as string;
      await approveCard(setup, proposalId);
      const committed = await execute("commit_address_change", { proposal_id: proposalId });
      expect(committed).toMatchObject({ structuredContent: { result: { new_version: 18 } } });
      await expectOneAddressChange(setup, (await sessionRunOf(setup.agentId)).id, proposalId);
    } finally {
      await client.close();
    }
  });
});

describe("@langchain/mcp-adapters MultiServerMCPClient", () => {
  it("gets tools with getTools() and invokes them through the journey", async () => {
    const client = new MultiServerMCPClient({
      mcpServers: {
        guichet: {
          transport: "http",
          url: mcpUrl(setup.agentId, "read_write"),
          headers: { authorization: `Bearer ${setup.tenant.key}` },
        },
      },
    });
    try {
      const tools = await client.getTools();
      const tool = (name: string) => {
        const found = tools.find((candidate) => candidate.name.endsWith(setup.crm.key(name)));
        if (!found) throw new Error(`no tool ${name} in ${tools.map((t) => t.name).join(", ")}`);
        return found;
      };
      const read = textOf(await tool("get_customer").invoke({ customer_id: "C-1842" }));
      expect(read).toContain("C-1842");
      // LangChain checks arguments against the input schema itself, so a malformed id never leaves it;
      // a well-formed id of no proposal is Guichet's refusal to make.
      const refused = await tool("commit_address_change")
        .invoke({ proposal_id: `prop_${"0".repeat(26)}` })
        .then(textOf, (error: Error) => error.message);
      expect(refused).toContain("PROPOSAL_NOT_FOUND");
      // The adapter flattens a oneOf into one object whose `kind` keeps the last branch's value,
      // so it lets only {"kind": "new"} through: the same address, given in full.
      const newAddress = {
        kind: "new",
        line1: "24 quai Saint-Antoine",
        city: "Lyon",
        postal_code: "69002",
        country: "FR",
      };
      const preview = textOf(
        await tool("preview_address_change").invoke({ customer_id: "C-1842", destination: newAddress }),
      );
      const proposalId = PROPOSAL_ID.exec(preview)?.[0] as string;
      await approveCard(setup, proposalId);
      const committed = textOf(await tool("commit_address_change").invoke({ proposal_id: proposalId }));
      expect(committed).toContain("new_version");
      await expectOneAddressChange(setup, (await sessionRunOf(setup.agentId)).id, proposalId);
      expect((await crmCustomer("C-1842")).version).toBe(18);
    } finally {
      await client.close();
    }
  });
});
