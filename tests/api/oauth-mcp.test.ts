import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { UnauthorizedError } from "@modelcontextprotocol/sdk/client/auth.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { api, baseUrl, testDb } from "./helpers";
import { PREVIEW_ARGS, sdkClient } from "./mcp-server-helpers";
import {
  closeBrowser,
  consentInChromium,
  grantsOf,
  initializeWith,
  loopbackCallback,
  MemoryOAuthProvider,
  type Callback,
} from "./oauth-helpers";
import { crmSuite } from "./proposals-helpers";

// An MCP client that knows nothing but the agent's URL signs a member in by
// OAuth 2.1 (MCP authorization, 2025-11-25): 401 → discovery → registration →
// sign-in and consent in Chromium → token → tools, a read, and a write that
// becomes a proposal asked by that member through that client.

const setup = crmSuite();
let callback: Callback;

beforeAll(async () => {
  callback = await loopbackCallback();
});
afterAll(async () => {
  await callback?.close();
  await closeBrowser();
});

/** The URL the agent's drawer prints for writes: the client asks for the scope it needs (mcp:read_write). */
function doorUrl(agentId: string, capabilities = "read_write"): URL {
  return new URL(`${baseUrl}/mcp/agents/${agentId}?capabilities=${capabilities}`);
}

describe("discovery", () => {
  it("answers 401 with the resource metadata, which names Guichet as the authorization server", async () => {
    const door = await initializeWith(null, doorUrl(setup.agentId, "read").toString());
    expect(door.status).toBe(401);
    const metadataUrl = `${baseUrl}/.well-known/oauth-protected-resource/mcp/agents/${setup.agentId}`;
    expect(door.challenge).toContain(`resource_metadata="${metadataUrl}"`);
    expect(door.challenge).toContain('scope="mcp:read"');
    const writes = await initializeWith(null, doorUrl(setup.agentId).toString());
    expect(writes.challenge).toContain('scope="mcp:read_write"');

    const resource = await (await fetch(metadataUrl)).json();
    expect(resource).toMatchObject({
      resource: `${baseUrl}/mcp/agents/${setup.agentId}`,
      authorization_servers: [baseUrl],
      scopes_supported: ["mcp:read", "mcp:read_write"],
      bearer_methods_supported: ["header"],
    });
    for (const path of ["/.well-known/oauth-authorization-server", "/.well-known/openid-configuration"]) {
      const server = await (await fetch(`${baseUrl}${path}`)).json();
      expect(server).toMatchObject({
        issuer: baseUrl,
        code_challenge_methods_supported: ["S256"],
        client_id_metadata_document_supported: true,
        registration_endpoint: `${baseUrl}/oauth/register`,
        authorization_response_iss_parameter_supported: true,
      });
    }
  });
});

describe("the official SDK client, from nothing", () => {
  it("registers, signs Dana in, gets consent, reads, and asks for a write as Dana via Claude", async () => {
    const db = await testDb();
    const dana = await db.member.findUniqueOrThrow({ where: { email: setup.tenant.emails.developer } });
    let screen = "";
    const provider = new MemoryOAuthProvider(callback.url, async (url) => {
      await consentInChromium(url, dana.email, "Autoriser", async (page) => {
        screen = await page.locator("main").innerText();
      });
    });
    const transport = new StreamableHTTPClientTransport(doorUrl(setup.agentId), { authProvider: provider });
    const first = new Client({ name: "claude-ai", version: "0.1.0" });
    await expect(first.connect(transport)).rejects.toBeInstanceOf(UnauthorizedError);

    // The consent screen said who asks, for which agent, what, and that none of it is verified.
    expect(screen).toContain("Claude");
    expect(screen).toContain("non vérifié");
    expect(screen).toContain("Lecture et écriture");
    // The authorization request carried PKCE S256, state and the agent's MCP URL as resource.
    const asked = provider.authorizationUrl!.searchParams;
    expect(asked.get("code_challenge_method")).toBe("S256");
    expect(asked.get("resource")).toBe(`${baseUrl}/mcp/agents/${setup.agentId}`);
    expect(asked.get("scope")).toBe("mcp:read_write");
    const answer = await callback.next();
    expect(answer.get("iss")).toBe(baseUrl);
    expect(answer.get("state")).toBe(asked.get("state"));

    await transport.finishAuth(answer.get("code")!);
    expect(provider.saved?.access_token).toMatch(/^gma_/);
    expect(provider.saved?.refresh_token).toMatch(/^gmr_/);

    const client = new Client({ name: "claude-ai", version: "0.1.0" });
    await client.connect(new StreamableHTTPClientTransport(doorUrl(setup.agentId), { authProvider: provider }));
    const { tools } = await client.listTools();
    expect(tools.map((tool) => tool.name)).toContain(setup.crm.key("preview_address_change"));
    const read = await client.callTool({ name: setup.crm.key("get_customer"), arguments: { customer_id: "C-1842" } });
    expect(read.isError).toBeFalsy();
    const preview = await client.callTool({ name: setup.crm.key("preview_address_change"), arguments: PREVIEW_ARGS });
    const card = (preview.structuredContent as { proposal: { id: string; approval_url: string } }).proposal;
    expect(card.approval_url).toContain(`/approbations/${card.id}`);
    await client.close();

    // Stored: one grant for Dana at this agent, tokens as hashes only, and the proposal asked by Dana via Claude.
    const grants = await grantsOf(setup.tenant.organizationId);
    expect(grants).toHaveLength(1);
    expect(grants[0]).toMatchObject({ memberId: dana.id, agentId: setup.agentId, scope: "mcp:read_write" });
    const stored = await db.oAuthToken.findMany({ where: { grantId: grants[0].id } });
    expect(stored.map((row) => row.hash)).not.toContain(provider.saved!.access_token);
    expect(JSON.stringify(stored)).not.toContain(provider.saved!.access_token);
    const proposal = await db.proposal.findUniqueOrThrow({ where: { id: card.id } });
    expect(proposal.requestedBy).toBe(dana.id);
    const run = await db.run.findUniqueOrThrow({ where: { id: proposal.runId } });
    expect(run).toMatchObject({ memberId: dana.id, apiKeyId: null, clientName: "Claude", oauthGrantId: grants[0].id });
    const listed = await api(`/v1/proposals/${card.id}`, { as: await setup.tenant.as("admin") });
    expect(listed.body.data.requester).toMatchObject({
      source: "mcp",
      member: { id: dana.id, name: dana.name },
      mcp_client: { name: "Claude" },
    });
    const audit = await db.auditEvent.findMany({
      where: { organizationId: setup.tenant.organizationId, action: "oauth_grant.created" },
    });
    expect(audit).toHaveLength(1);

    // Refresh rotates: the new pair works, the old refresh token is now spent.
    const before = provider.saved!;
    const rotated = await fetch(`${baseUrl}/oauth/token`, {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded" },
      body: new URLSearchParams({
        grant_type: "refresh_token",
        refresh_token: before.refresh_token!,
        client_id: provider.info!.client_id,
      }),
    });
    expect(rotated.status).toBe(200);
    const fresh = await rotated.json();
    expect(fresh.refresh_token).not.toBe(before.refresh_token);
    expect((await initializeWith(fresh.access_token, doorUrl(setup.agentId).toString())).status).toBe(200);
  });

  it("answers a consent refused with access_denied and grants nothing", async () => {
    const provider = new MemoryOAuthProvider(callback.url, (url) =>
      consentInChromium(url, setup.tenant.emails.developer, "Refuser"),
    );
    const transport = new StreamableHTTPClientTransport(doorUrl(setup.agentId), { authProvider: provider });
    const before = (await grantsOf(setup.tenant.organizationId)).length;
    await expect(new Client({ name: "c", version: "1" }).connect(transport)).rejects.toBeInstanceOf(UnauthorizedError);
    const answer = await callback.next();
    expect(answer.get("error")).toBe("access_denied");
    expect(answer.get("code")).toBeNull();
    expect(answer.get("iss")).toBe(baseUrl);
    expect(await grantsOf(setup.tenant.organizationId)).toHaveLength(before);
  });
});

describe("API keys", () => {
  it("still open a session at the door, unchanged", async () => {
    const { client } = await sdkClient(setup.agentId, setup.tenant.key, "read");
    const read = await client.callTool({ name: setup.crm.key("get_customer"), arguments: { customer_id: "C-1842" } });
    expect(read.isError).toBeFalsy();
    await client.close();
    const db = await testDb();
    const run = await db.run.findFirstOrThrow({
      where: { agentId: setup.agentId, source: "mcp", apiKeyId: { not: null } },
    });
    expect(run.oauthGrantId).toBeNull();
  });
});
