import { beforeAll, describe, expect, it } from "vitest";
import { api, baseUrl, createTenant, signIn, testDb, type Tenant } from "./helpers";
import { createAgent } from "./dispatch-fixtures";
import {
  authorizationParams,
  authorizeRequest,
  consentOverHttp,
  grantOverHttp,
  grantsOf,
  initializeWith,
  pkce,
  register,
  resourceOf,
  tokenRequest,
} from "./oauth-helpers";

// Every way an OAuth request at the MCP door can be wrong, each answered with
// the protocol's error and nothing granted: the grants, codes and tokens
// stored are checked after each refusal.

let tenant: Tenant;
let agentId: string;
let otherAgentId: string;
const redirectUri = "http://127.0.0.1:9/callback";
let clientId: string;

beforeAll(async () => {
  tenant = await createTenant("pro");
  agentId = (await createAgent(tenant)).id;
  otherAgentId = (await createAgent(tenant, { name: "Autre agent" })).id;
  clientId = await register([redirectUri, "https://app.example/cb"]);
});

const door = (agent: string) => `${baseUrl}/mcp/agents/${agent}`;

async function nothingGranted(before = 0) {
  expect(await grantsOf(tenant.organizationId)).toHaveLength(before);
}

describe("the authorization request", () => {
  it("refuses PKCE missing or plain, back at the client with state and iss", async () => {
    const { challenge } = pkce();
    const base = authorizationParams(clientId, redirectUri, challenge, agentId);
    const before = (await grantsOf(tenant.organizationId)).length;
    for (const change of [{ code_challenge: "" }, { code_challenge_method: "plain" }, { code_challenge_method: "" }]) {
      const params = Object.fromEntries(Object.entries({ ...base, ...change }).filter(([, v]) => v !== ""));
      const answer = await authorizeRequest(params);
      expect(answer.status).toBe(302);
      expect(answer.location?.origin + answer.location!.pathname).toBe(redirectUri);
      expect(answer.location?.searchParams.get("error")).toBe("invalid_request");
      expect(answer.location?.searchParams.get("state")).toBe("etat-123");
      expect(answer.location?.searchParams.get("iss")).toBe(baseUrl);
      // Even posted straight to the decision, with a signed-in member: refused, nothing granted.
      const consent = await consentOverHttp(params, tenant.emails.developer, "allow");
      expect(consent.redirect?.searchParams.get("error")).toBe("invalid_request");
    }
    await nothingGranted(before);
  });

  it("refuses a redirect_uri not registered or not exact, on the page, without redirecting", async () => {
    const { challenge } = pkce();
    for (const uri of [
      "https://app.example/cb/",
      "https://app.example/cb?x=1",
      "https://evil.example/cb",
      "http://127.0.0.1:9/other",
    ]) {
      const answer = await authorizeRequest(authorizationParams(clientId, uri, challenge, agentId));
      expect(answer.status).toBe(400);
      expect(answer.location).toBeNull();
      expect(answer.text).toContain("invalid_request");
    }
    // A loopback redirect URI matches on any port (RFC 8252 §7.3).
    const loopback = await authorizeRequest(
      authorizationParams(clientId, "http://127.0.0.1:45678/callback", challenge, agentId),
    );
    expect(loopback.status).toBe(302);
    expect(loopback.location?.pathname).toBe("/oauth/consentement");
    await nothingGranted((await grantsOf(tenant.organizationId)).length);
  });

  it("requires a resource naming one agent's MCP URL (RFC 8707)", async () => {
    const { challenge } = pkce();
    const params = authorizationParams(clientId, redirectUri, challenge, agentId);
    for (const resource of [
      undefined,
      `${baseUrl}/v1/agents`,
      "https://other.example/mcp/agents/agt_01jx0000000000000000000000",
    ]) {
      const { resource: _drop, ...rest } = params;
      const answer = await authorizeRequest(resource === undefined ? rest : { ...rest, resource });
      expect(answer.location?.searchParams.get("error")).toBe("invalid_target");
    }
  });

  it("refuses an unknown client and a registration with a redirect URI Guichet would not send a code to", async () => {
    const { challenge } = pkce();
    const unknown = await authorizeRequest(
      authorizationParams("ocl_01jx0000000000000000000000", redirectUri, challenge, agentId),
    );
    expect(unknown.status).toBe(400);
    for (const uris of [["http://app.example/cb"], ["javascript:alert(1)"], []]) {
      const response = await fetch(`${baseUrl}/oauth/register`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ client_name: "x", redirect_uris: uris }),
      });
      expect(response.status).toBe(400);
      expect((await response.json()).error).toBe("invalid_client_metadata");
    }
  });

  it("lets a viewer grant read but never read_write", async () => {
    const before = (await grantsOf(tenant.organizationId)).length;
    const { challenge } = pkce();
    const refused = await consentOverHttp(
      authorizationParams(clientId, redirectUri, challenge, agentId, "mcp:read_write"),
      tenant.emails.viewer,
      "allow",
    );
    expect(refused.redirect?.searchParams.get("error")).toBe("invalid_scope");
    await nothingGranted(before);
    const read = await grantOverHttp(agentId, tenant.emails.viewer, "mcp:read");
    expect(read.tokens.scope).toBe("mcp:read");
    expect((await initializeWith(read.tokens.access_token, door(agentId))).status).toBe(200);
    // Asking the door for writes with a read grant: 403 with the scope to ask for (incremental consent).
    const wider = await initializeWith(read.tokens.access_token, `${door(agentId)}?capabilities=read_write`);
    expect(wider.status).toBe(403);
    expect(wider.challenge).toContain('error="insufficient_scope"');
    expect(wider.challenge).toContain('scope="mcp:read_write"');
  });

  it("refuses a forged consent: another origin, or a form token that is not the screen's", async () => {
    const before = (await grantsOf(tenant.organizationId)).length;
    const { challenge } = pkce();
    const params = authorizationParams(clientId, redirectUri, challenge, agentId);
    const foreign = await consentOverHttp(params, tenant.emails.developer, "allow", { origin: "https://evil.example" });
    expect(foreign.status).toBe(403);
    const forged = await consentOverHttp(params, tenant.emails.developer, "allow", { csrf: "forged" });
    expect(forged.status).toBe(403);
    await nothingGranted(before);
  });

  it("serves the consent screen unframeable", async () => {
    const caller = await signIn(tenant.emails.developer);
    const { challenge } = pkce();
    const response = await fetch(
      `${baseUrl}/oauth/consentement?${new URLSearchParams(authorizationParams(clientId, redirectUri, challenge, agentId))}`,
      {
        headers: { cookie: caller.cookie! },
      },
    );
    expect(response.status).toBe(200);
    expect(response.headers.get("x-frame-options")).toBe("DENY");
    expect(response.headers.get("content-security-policy")).toContain("frame-ancestors 'none'");
  });
});

describe("codes and tokens", () => {
  it("refuses a code used twice and revokes what its first use gave", async () => {
    const granted = await grantOverHttp(agentId, tenant.emails.developer);
    const again = await tokenRequest({
      grant_type: "authorization_code",
      code: granted.code,
      code_verifier: granted.verifier,
      client_id: granted.clientId,
      redirect_uri: granted.redirectUri,
    });
    expect(again.status).toBe(400);
    expect(again.body.error).toBe("invalid_grant");
    expect((await initializeWith(granted.tokens.access_token, door(agentId))).status).toBe(401);
    const db = await testDb();
    const grant = await db.oAuthGrant.findFirstOrThrow({
      where: { clientId: { not: "" }, client: { clientId: granted.clientId } },
    });
    expect(grant.revokedReason).toBe("code_reuse");
  });

  it("refuses a wrong PKCE verifier or redirect_uri at the token endpoint, and the code is spent", async () => {
    const redirect = "http://127.0.0.1:9/callback";
    const client = await register([redirect]);
    const { verifier, challenge } = pkce();
    const consent = await consentOverHttp(
      authorizationParams(client, redirect, challenge, agentId),
      tenant.emails.developer,
      "allow",
    );
    const code = consent.redirect!.searchParams.get("code")!;
    const wrong = await tokenRequest({
      grant_type: "authorization_code",
      code,
      code_verifier: pkce().verifier,
      client_id: client,
      redirect_uri: redirect,
    });
    expect(wrong.body.error).toBe("invalid_grant");
    const late = await tokenRequest({
      grant_type: "authorization_code",
      code,
      code_verifier: verifier,
      client_id: client,
      redirect_uri: redirect,
    });
    expect(late.body.error).toBe("invalid_grant");
  });

  it("revokes the whole grant when a refresh token is used twice", async () => {
    const granted = await grantOverHttp(agentId, tenant.emails.developer);
    const refresh = {
      grant_type: "refresh_token",
      refresh_token: granted.tokens.refresh_token,
      client_id: granted.clientId,
    };
    const first = await tokenRequest(refresh);
    expect(first.status).toBe(200);
    const reused = await tokenRequest(refresh);
    expect(reused.status).toBe(400);
    expect(reused.body.error).toBe("invalid_grant");
    // The rotated pair of the first use is gone with the grant.
    expect((await initializeWith(first.body.access_token, door(agentId))).status).toBe(401);
    expect((await tokenRequest({ ...refresh, refresh_token: first.body.refresh_token })).body.error).toBe(
      "invalid_grant",
    );
    const db = await testDb();
    const events = await db.auditEvent.findMany({
      where: { organizationId: tenant.organizationId, action: "oauth_grant.refresh_reused" },
    });
    expect(events.length).toBeGreaterThanOrEqual(1);
  });

  it("binds a token to one agent: refused at another agent and on /v1", async () => {
    const granted = await grantOverHttp(agentId, tenant.emails.developer);
    const elsewhere = await initializeWith(granted.tokens.access_token, door(otherAgentId));
    expect(elsewhere.status).toBe(401);
    expect(elsewhere.challenge).toContain('error="invalid_token"');
    const v1 = await api("/v1/agents", { as: { key: granted.tokens.access_token } });
    expect(v1.status).toBe(401);
    expect(v1.body.error.code).toBe("unauthenticated");
    // A refresh cannot move it either.
    const moved = await tokenRequest({
      grant_type: "refresh_token",
      refresh_token: granted.tokens.refresh_token,
      client_id: granted.clientId,
      resource: resourceOf(otherAgentId),
    });
    expect(moved.body.error).toBe("invalid_target");
  });

  it("refuses an expired access token", async () => {
    const granted = await grantOverHttp(agentId, tenant.emails.developer);
    const db = await testDb();
    const { secretHash } = await import("@/lib/oauth/config");
    await db.oAuthToken.update({
      where: { hash: secretHash(granted.tokens.access_token) },
      data: { expiresAt: new Date(Date.now() - 1000) },
    });
    expect((await initializeWith(granted.tokens.access_token, door(agentId))).status).toBe(401);
  });

  it("ends a client's grant when it revokes its token (RFC 7009)", async () => {
    const granted = await grantOverHttp(agentId, tenant.emails.developer);
    const response = await fetch(`${baseUrl}/oauth/revoke`, {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded" },
      body: new URLSearchParams({ token: granted.tokens.refresh_token, client_id: granted.clientId }),
    });
    expect(response.status).toBe(200);
    expect((await initializeWith(granted.tokens.access_token, door(agentId))).status).toBe(401);
  });
});

describe("the member behind a token", () => {
  it("ends the tokens at once when the member is removed, deactivated, re-roled or signs out everywhere", async () => {
    const other = await createTenant("pro");
    const agent = (await createAgent(other)).id;
    const owner = await other.as("owner");
    const db = await testDb();
    const memberOf = (email: string) => db.member.findUniqueOrThrow({ where: { email } });

    const removed = await grantOverHttp(agent, other.emails.developer);
    expect((await initializeWith(removed.tokens.access_token, door(agent))).status).toBe(200);
    const developer = await memberOf(other.emails.developer);
    expect((await api(`/v1/members/${developer.id}`, { method: "DELETE", as: owner })).status).toBe(200);
    expect((await initializeWith(removed.tokens.access_token, door(agent))).status).toBe(401);

    const admin = await memberOf(other.emails.admin);
    const deactivated = await grantOverHttp(agent, other.emails.admin);
    // Each token is used once first, so the door has it validated and kept: the change must still end it.
    expect((await initializeWith(deactivated.tokens.access_token, door(agent))).status).toBe(200);
    await api(`/v1/members/${admin.id}`, { method: "PATCH", json: { active: false }, as: owner });
    expect((await initializeWith(deactivated.tokens.access_token, door(agent))).status).toBe(401);

    const approver = await memberOf(other.emails.approver);
    const reroled = await grantOverHttp(agent, other.emails.approver, "mcp:read");
    expect((await initializeWith(reroled.tokens.access_token, door(agent))).status).toBe(200);
    await api(`/v1/members/${approver.id}`, { method: "PATCH", json: { role: "viewer" }, as: owner });
    expect((await initializeWith(reroled.tokens.access_token, door(agent))).status).toBe(401);

    const signedOut = await grantOverHttp(agent, other.emails.owner);
    expect((await initializeWith(signedOut.tokens.access_token, door(agent))).status).toBe(200);
    expect((await api("/v1/sessions", { method: "DELETE", as: owner })).status).toBe(200);
    expect((await initializeWith(signedOut.tokens.access_token, door(agent))).status).toBe(401);
    const reasons = (await grantsOf(other.organizationId)).map((grant) => grant.revokedReason);
    expect(reasons).toEqual(expect.arrayContaining(["deactivated", "role_changed", "signed_out"]));
  });
});
