import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { ErrorCode, UrlElicitationRequiredError, type ClientCapabilities } from "@modelcontextprotocol/sdk/types.js";
import { beforeAll, describe, expect, it } from "vitest";
import { testDb } from "./helpers";
import { approveCard, mcpUrl, PREVIEW_ARGS } from "./mcp-server-helpers";
import { grantOverHttp } from "./oauth-helpers";
import { crmCustomer, crmSuite } from "./proposals-helpers";

// URL-mode elicitation (MCP 2025-11-25) at the door: a client that declares it
// and commits a proposal still waiting for people is handed the approval page
// (JSON-RPC error -32042); once approved, the same call retried commits. A
// client without it keeps the proposal card with approval_url. Dana signs in
// by OAuth, as a desktop client would.

const setup = crmSuite();
let token: string;

beforeAll(async () => {
  token = (await grantOverHttp(setup.agentId, setup.tenant.emails.developer)).tokens.access_token;
});

async function connect(capabilities: ClientCapabilities) {
  const transport = new StreamableHTTPClientTransport(new URL(mcpUrl(setup.agentId, "read_write")), {
    requestInit: { headers: { authorization: `Bearer ${token}` } },
  });
  const client = new Client({ name: "claude-ai", version: "0.1.0" }, { capabilities });
  await client.connect(transport);
  return { client, transport };
}

async function pendingCard(client: Client) {
  const preview = await client.callTool({ name: setup.crm.key("preview_address_change"), arguments: PREVIEW_ARGS });
  expect(preview.isError).toBeFalsy();
  return (preview.structuredContent as { proposal: { id: string; status: string; approval_url: string } }).proposal;
}

describe("URL-mode elicitation for approvals", () => {
  it("hands a client that declares it the approval page, then commits the same call once approved", async () => {
    const { client, transport } = await connect({ elicitation: { form: {}, url: {} } });
    expect(transport.sessionId).toMatch(/^mcpsu_/);
    // The preview itself answers as always: the card, with its approval page.
    const card = await pendingCard(client);
    expect(card.status).toBe("pending");

    const commit = { name: setup.crm.key("commit_address_change"), arguments: { proposal_id: card.id } };
    const refused = await client.callTool(commit).then(
      () => null,
      (error: unknown) => error,
    );
    expect(refused).toBeInstanceOf(UrlElicitationRequiredError);
    const elicitation = refused as UrlElicitationRequiredError;
    expect(elicitation.code).toBe(ErrorCode.UrlElicitationRequired);
    expect(elicitation.code).toBe(-32042);
    expect(elicitation.elicitations).toEqual([
      {
        mode: "url",
        elicitationId: card.id,
        url: card.approval_url,
        message: expect.stringContaining("waits for approval"),
      },
    ]);
    expect(card.approval_url.endsWith(`/approbations/${card.id}`)).toBe(true);
    // Nothing happened: CRM Acme untouched, the proposal still pending, the refusal recorded on the run.
    expect(await crmCustomer("C-1842")).toMatchObject({ version: 17 });
    const db = await testDb();
    expect((await db.proposal.findUniqueOrThrow({ where: { id: card.id } })).status).toBe("pending");

    await approveCard(setup, card.id);
    const committed = await client.callTool(commit);
    expect(committed.isError).toBeFalsy();
    expect(committed.structuredContent).toMatchObject({
      result: { customer_id: "C-1842", previous_version: 17, new_version: 18 },
      evidence: { proposal_id: card.id, effect: "write" },
    });
    await client.close();
  });

  it("keeps today's answer for clients without it (form-only elicitation or none)", async () => {
    for (const capabilities of [{}, { elicitation: {} }, { elicitation: { form: {} } }] as ClientCapabilities[]) {
      const { client, transport } = await connect(capabilities);
      expect(transport.sessionId).toMatch(/^mcps_/);
      const card = await pendingCard(client);
      const early = await client.callTool({
        name: setup.crm.key("commit_address_change"),
        arguments: { proposal_id: card.id },
      });
      expect(early.isError).toBe(true);
      expect(early.structuredContent).toMatchObject({
        error: { code: "PROPOSAL_NOT_APPROVED" },
        proposal: { id: card.id, status: "pending", approval_url: card.approval_url },
      });
      await client.close();
    }
  });

  it("cannot be switched on by renaming a session id: the changed id finds no session", async () => {
    const { client, transport } = await connect({});
    const forged = (transport.sessionId as string).replace(/^mcps_/, "mcpsu_");
    const response = await fetch(mcpUrl(setup.agentId, "read_write"), {
      method: "POST",
      headers: {
        authorization: `Bearer ${token}`,
        "content-type": "application/json",
        accept: "application/json, text/event-stream",
        "mcp-session-id": forged,
        "mcp-protocol-version": "2025-11-25",
      },
      body: JSON.stringify({ jsonrpc: "2.0", id: 7, method: "tools/list" }),
    });
    expect(response.status).toBe(404);
    await client.close();
  });
});
