import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { ErrorCode, UrlElicitationRequiredError, type ClientCapabilities } from "@modelcontextprotocol/sdk/types.js";
import { afterEach, beforeAll, describe, expect, it } from "vitest";
import { api, baseUrl, createTenant, testDb, type Caller, type Tenant } from "./helpers";
import { createAgent, reviewAll } from "./dispatch-fixtures";
import { boutiqueControl, callsOf, connectAs, createBoutique, memberId } from "./member-connectors-helpers";
import { mcpUrl } from "./mcp-server-helpers";
import { grantOverHttp } from "./oauth-helpers";

// A connector that acts as each member, called through the MCP door by a
// session signed in by OAuth (the member's desktop client). When the member has
// no usable connection, a client that declared URL-mode elicitation (MCP
// 2025-11-25, `elicitation: { url: {} }`) is handed the connect page as the
// JSON-RPC error -32042, and the same call retried after connecting goes
// through; any other client gets a tool error naming the page. Nothing reaches
// Boutique without the member's own token.

let tenant: Tenant;
let serverId: number;
let agentId: string;
let dana: Caller; // the developer, Boutique's dana@boutique.test
let danaToken: string; // Dana's access token at the door
const key = (tool: string) => `mcp_${serverId}_${tool}`;
const connectPage = () => `${baseUrl}/connexions/${serverId}/connecter`;
const open: Client[] = [];

beforeAll(async () => {
  tenant = await createTenant("pro");
  dana = await tenant.as("developer");
  serverId = await createBoutique(tenant);
  const admin = await tenant.as("admin");
  expect((await connectAs(serverId, admin, "leo@boutique.test")).status).toBe(303);
  expect((await api(`/v1/mcp_servers/${serverId}/sync`, { method: "POST", as: admin })).status).toBe(200);
  await reviewAll(tenant, serverId);
  agentId = (await createAgent(tenant, { tools: [key("list_orders")] })).id;
  danaToken = (await grantOverHttp(agentId, tenant.emails.developer, "mcp:read")).tokens.access_token;
});

afterEach(async () => {
  await Promise.all(open.splice(0).map((client) => client.close()));
});

async function doorSession(capabilities: ClientCapabilities, token = danaToken) {
  const transport = new StreamableHTTPClientTransport(new URL(mcpUrl(agentId, "read")), {
    requestInit: { headers: { authorization: `Bearer ${token}` } },
  });
  const client = new Client({ name: "desktop-client", version: "1.0.0" }, { capabilities });
  await client.connect(transport);
  open.push(client);
  // As real clients do: list first (the SDK checks structured results against the listed schemas).
  const { tools } = await client.listTools();
  return { client, transport, tools: tools.map((tool) => tool.name) };
}

async function connectDana() {
  expect((await connectAs(serverId, dana, "dana@boutique.test")).status).toBe(303);
}

async function disconnectDana() {
  expect((await api(`/v1/me/connections/${serverId}`, { method: "DELETE", as: dana })).status).toBe(204);
}

const listOrders = () => ({ name: key("list_orders"), arguments: {} });

describe("a per-member tool at the MCP door, without the member's connection", () => {
  it("hands a client that declares URL-mode elicitation the connect page; the same call retried after connecting succeeds", async () => {
    await connectDana();
    const { client, transport, tools } = await doorSession({ elicitation: { form: {}, url: {} } });
    expect(transport.sessionId).toMatch(/^mcpsu_/);
    expect(tools).toContain(key("list_orders"));
    const first = await client.callTool(listOrders());
    expect(first.isError).toBeFalsy();
    expect(first.structuredContent).toMatchObject({ result: { account: { email: "dana@boutique.test" } } });

    await disconnectDana();
    const calls = await callsOf("list_orders", "dana@boutique.test");
    const refused = await client.callTool(listOrders()).then(
      () => null,
      (error: unknown) => error,
    );
    expect(refused).toBeInstanceOf(UrlElicitationRequiredError);
    const elicitation = refused as UrlElicitationRequiredError;
    expect(elicitation.code).toBe(ErrorCode.UrlElicitationRequired);
    expect(elicitation.elicitations).toEqual([
      {
        mode: "url",
        elicitationId: expect.stringMatching(/^connect_/),
        url: connectPage(),
        message: expect.stringContaining("connect your own account first"),
      },
    ]);
    // Nothing reached Boutique, and the refusal is on the run like any other.
    expect(await callsOf("list_orders", "dana@boutique.test")).toBe(calls);
    const db = await testDb();
    const refusal = await db.step.findFirst({
      where: { organizationId: tenant.organizationId, tool: key("list_orders"), errorCode: "TOOL_UNAVAILABLE" },
    });
    expect(refusal).not.toBeNull();

    // The member follows the page (Guichet's connect flow, Boutique's sign-in), then the client retries.
    await connectDana();
    const retried = await client.callTool(listOrders());
    expect(retried.isError).toBeFalsy();
    expect(retried.structuredContent).toMatchObject({ result: { account: { email: "dana@boutique.test" } } });
    expect(await callsOf("list_orders", "dana@boutique.test")).toBe(calls + 1);
  });

  it("asks a client with URL-mode elicitation to reconnect when Boutique revoked the member's tokens", async () => {
    await connectDana();
    const { client } = await doorSession({ elicitation: { url: {} } });
    await boutiqueControl("revoke", { email: "dana@boutique.test" });
    const db = await testDb();
    const calls = await callsOf("list_orders", "dana@boutique.test");
    const refused = await client.callTool(listOrders()).then(
      () => null,
      (error: unknown) => error,
    );
    expect(refused).toBeInstanceOf(UrlElicitationRequiredError);
    expect((refused as UrlElicitationRequiredError).elicitations[0]).toMatchObject({
      url: connectPage(),
      message: expect.stringContaining("reconnect"),
    });
    expect(await callsOf("list_orders", "dana@boutique.test")).toBe(calls);
    const row = await db.mcpConnection.findFirstOrThrow({
      where: { serverId, memberId: await memberId(tenant, "developer") },
    });
    expect(row).toMatchObject({ state: "needs_reconnect", accessTokenCiphertext: null });
    await connectDana();
    expect((await client.callTool(listOrders())).isError).toBeFalsy();
  });

  it("gives other clients (form-only elicitation or none) a tool error naming the connect page", async () => {
    for (const capabilities of [{}, { elicitation: {} }, { elicitation: { form: {} } }] as ClientCapabilities[]) {
      await connectDana();
      const { client, transport } = await doorSession(capabilities);
      expect(transport.sessionId).toMatch(/^mcps_/);
      await disconnectDana();
      const calls = await callsOf("list_orders", "dana@boutique.test");
      const result = await client.callTool(listOrders());
      expect(result.isError).toBe(true);
      expect(result.structuredContent).toMatchObject({
        error: {
          code: "TOOL_UNAVAILABLE",
          reason: { code: "mcp_member_not_connected", state: "not_connected", connect_url: connectPage() },
        },
      });
      expect((result.content as Array<{ text: string }>)[0].text).toContain(connectPage());
      expect(await callsOf("list_orders", "dana@boutique.test")).toBe(calls);
    }
  });

  it("a session opened before connecting leaves the tool out and its instructions name the connect page", async () => {
    const owner = (await grantOverHttp(agentId, tenant.emails.owner, "mcp:read")).tokens.access_token;
    const { client, tools } = await doorSession({ elicitation: { url: {} } }, owner);
    expect(tools).not.toContain(key("list_orders"));
    expect(client.getInstructions()).toContain(
      `Not available in this session: ${key("list_orders")} — This connector acts as each member: connect your own account first (${connectPage()}).`,
    );
  });
});
