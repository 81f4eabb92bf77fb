import { beforeAll, describe, expect, it } from "vitest";
import { signIn as boutiqueSignIn } from "@/connectors/boutique/test-helpers";
import { api, baseUrl, createTenant, signIn, storedText, testDb, type Caller, type Tenant } from "./helpers";
import { createAgent, reviewAll } from "./dispatch-fixtures";
import {
  authorize,
  boutiqueControl,
  boutiqueMcpUrl,
  boutiqueUrl,
  callback,
  callsOf,
  connectAs,
  connectionRows,
  consentAtBoutique,
  counters,
  createBoutique,
  memberId,
  myConnections,
  pageCode,
} from "./member-connectors-helpers";

// Connectors that act as each member, against Boutique over real HTTP: each
// member signs in at Boutique's own authorization server through Guichet's
// connect flow, and every upstream call carries the token of the run's member.

let tenant: Tenant;
let serverId: number;
let agentId: string;
let dana: Caller; // the developer, signed in at Boutique as dana@boutique.test
let leo: Caller; // the owner, as leo@boutique.test
let nina: Caller; // another developer, who connects nothing
const key = (tool: string) => `mcp_${serverId}_${tool}`;

/** One more member of the tenant (password guichet-demo), signed in. */
async function extraMember(of: Tenant, role: "developer"): Promise<Caller> {
  const db = await testDb();
  const { newId } = await import("@/lib/ids");
  const { hashPassword } = await import("@/lib/auth/passwords");
  const email = `nina@${of.slug}.test`;
  await db.member.create({
    data: {
      id: newId("mem"),
      organizationId: of.organizationId,
      email,
      name: "Nina",
      role,
      passwordHash: await hashPassword("guichet-demo"),
    },
  });
  return signIn(email);
}

async function runAs(as: Caller, capabilities: "read" | "read_write" = "read", agent = agentId) {
  const response = await api("/v1/runs", { json: { agent, capabilities }, as });
  if (response.status !== 201) throw new Error(`run: HTTP ${response.status} ${JSON.stringify(response.body)}`);
  return { id: response.body.data.id as string, warnings: response.body.warnings as any[], run: response.body.data };
}

async function call(as: Caller, runId: string, tool: string, args: Record<string, unknown> = {}) {
  const response = await api(`/v1/runs/${runId}/tool_calls`, { json: { tool, arguments: args }, as });
  if (response.status !== 200) throw new Error(`tool call: HTTP ${response.status} ${JSON.stringify(response.body)}`);
  return response.body;
}

beforeAll(async () => {
  tenant = await createTenant("pro");
  dana = await tenant.as("developer");
  leo = await tenant.as("owner");
  nina = await extraMember(tenant, "developer");
  serverId = await createBoutique(tenant);
  const admin = await tenant.as("admin");
  // Syncing a per-member connector needs the admin's own connection.
  const refused = await api(`/v1/mcp_servers/${serverId}/sync`, { method: "POST", as: admin });
  expect(refused.status).toBe(409);
  expect(refused.body.error).toMatchObject({
    code: "connection_required",
    reason: {
      code: "mcp_member_not_connected",
      state: "not_connected",
      connect_url: expect.stringContaining(`/connexions/${serverId}/connecter`),
    },
  });
  expect((await connectAs(serverId, admin, "leo@boutique.test")).status).toBe(303);
  const synced = await api(`/v1/mcp_servers/${serverId}/sync`, { method: "POST", as: admin });
  expect(synced.status).toBe(200);
  expect(synced.body.sync.added).toEqual(
    expect.arrayContaining(["list_orders", "get_order", "preview_cancel_order", "commit_cancel_order"]),
  );
  await reviewAll(tenant, serverId);
  // Per-member tools go on an agent (each run then checks its member).
  agentId = (
    await createAgent(tenant, {
      tools: ["list_orders", "get_order", "preview_cancel_order", "commit_cancel_order"].map(key),
    })
  ).id;
});

describe("connecting", () => {
  it("connects a member over HTTP: authorize, Boutique's sign-in and consent, the callback back to return_to", async () => {
    const before = await myConnections(dana);
    expect(before.find((c) => c.server.id === serverId)).toMatchObject({
      state: "not_connected",
      account: null,
      connect_url: expect.stringMatching(new RegExp(`/connexions/${serverId}/connecter$`)),
    });
    const answer = await connectAs(serverId, dana, "dana@boutique.test", "/agents?onglet=outils");
    expect(answer).toMatchObject({ status: 303, location: "/agents?onglet=outils" });
    const mine = (await myConnections(dana)).find((c) => c.server.id === serverId);
    expect(mine).toMatchObject({
      server: { id: serverId, auth: "oauth" },
      state: "connected",
      account: "dana@boutique.test",
      expires_at: expect.any(String),
    });
    // Sealed, never in clear: the stored rows hold no token Boutique could accept.
    const row = (await connectionRows(serverId)).find((r) => r.account === "dana@boutique.test")!;
    expect(row.accessTokenCiphertext).toMatch(/^v2\./);
    expect(row.refreshTokenCiphertext).toMatch(/^v2\./);
    const audit = await (
      await testDb()
    ).auditEvent.findMany({
      where: { organizationId: tenant.organizationId, action: "mcp_connection.connected" },
    });
    expect(audit.length).toBeGreaterThanOrEqual(2);
    expect(JSON.stringify(audit)).not.toMatch(/eyJ[A-Za-z0-9_-]{20,}/); // no JWT in the trail
    expect((await connectAs(serverId, leo, "leo@boutique.test")).status).toBe(303);
  });

  it("the connect URL signs the member in first, then sends the browser to Boutique", async () => {
    const signedOut = await fetch(`${baseUrl}/connexions/${serverId}/connecter?return_to=/journal`, {
      redirect: "manual",
    });
    expect(signedOut.status).toBe(302);
    const signIn = new URL(signedOut.headers.get("location")!, baseUrl);
    expect(signIn.pathname).toBe("/connexion");
    const back = new URL(signIn.searchParams.get("callbackUrl")!, baseUrl);
    expect(back.pathname).toBe(`/connexions/${serverId}/connecter`);
    expect(back.searchParams.get("return_to")).toBe("/journal");
    const signedIn = await fetch(`${baseUrl}/connexions/${serverId}/connecter?return_to=/journal`, {
      redirect: "manual",
      headers: { cookie: dana.cookie! },
    });
    expect(signedIn.status).toBe(302);
    const location = new URL(signedIn.headers.get("location")!);
    expect(location.origin).toBe(new URL(boutiqueUrl).origin);
    expect(location.searchParams.get("code_challenge_method")).toBe("S256");
    expect(location.searchParams.get("resource")).toBe(boutiqueMcpUrl);
    expect(location.searchParams.get("state")).toBeTruthy();
    expect(location.searchParams.get("redirect_uri")).toBe(`${baseUrl}/oauth/connectors/callback`);
  });

  it("refuses bad input with typed errors: return_to off-site, a token for an oauth connector, API keys", async () => {
    for (const bad of ["//evil.example/x", "https://evil.example/", "/\\evil.example", "relative"]) {
      const response = await api(`/v1/me/connections/${serverId}/authorize`, { json: { return_to: bad }, as: dana });
      expect(response.status).toBe(400);
      expect(response.body.error.code).toBe("invalid_parameter");
    }
    const token = await api(`/v1/me/connections/${serverId}`, { method: "PUT", json: { token: "abc" }, as: dana });
    expect(token.status).toBe(409);
    expect(token.body.error.code).toBe("connection_auth_mismatch");
    const byKey = await api("/v1/me/connections", { as: { key: tenant.key } });
    expect(byKey.status).toBe(403);
    expect(byKey.body.error.code).toBe("forbidden");
  });

  it("another organization's connector is 404 everywhere", async () => {
    const other = await createTenant("pro");
    const theirs = await createBoutique(other);
    const admin = await tenant.as("admin");
    const calls = [
      api(`/v1/me/connections/${theirs}`, { method: "PUT", json: { token: "x" }, as: dana }),
      api(`/v1/me/connections/${theirs}/authorize`, { json: {}, as: dana }),
      api(`/v1/me/connections/${theirs}`, { method: "DELETE", as: dana }),
      api(`/v1/mcp_servers/${theirs}/connections`, { as: admin }),
      api(`/v1/mcp_servers/${theirs}/connections`, { method: "DELETE", as: admin }),
    ];
    for (const response of await Promise.all(calls)) {
      expect(response.status).toBe(404);
      expect(response.body.error.code).toBe("not_found");
    }
    expect((await myConnections(dana)).map((c) => c.server.id)).not.toContain(theirs);
  });
});

describe("hostile callbacks", () => {
  async function pending() {
    const db = await testDb();
    // The viewer's own sign-ins in progress: each hostile answer used its state up.
    return db.mcpAuthorization.count({ where: { serverId, memberId: await memberId(tenant, "viewer") } });
  }

  it("a wrong, replayed or missing state, a wrong iss or a missing code: typed pages, nothing stored", async () => {
    const viewer = await tenant.as("viewer");
    const rowsBefore = JSON.stringify(await connectionRows(serverId));

    const unknown = await callback(`${baseUrl}/oauth/connectors/callback?state=forged&code=abc`, viewer);
    expect(unknown.status).toBe(400);
    expect(pageCode(unknown.text)).toBe("connection_state_invalid");

    // A genuine answer from Boutique, then each part of it altered.
    const back = await consentAtBoutique(await authorize(serverId, viewer), "dana@boutique.test");
    const iss = back.searchParams.get("iss")!;
    expect(iss).toBeTruthy();
    const wrongIss = new URL(back);
    wrongIss.searchParams.set("iss", "http://evil.test");
    const refusedIss = await callback(wrongIss, viewer);
    expect(refusedIss.status).toBe(400);
    expect(pageCode(refusedIss.text)).toBe("connection_issuer_mismatch");
    // The state was used by that attempt: the genuine answer is now a replay.
    const replay = await callback(back, viewer);
    expect(pageCode(replay.text)).toBe("connection_state_invalid");

    const back2 = await consentAtBoutique(await authorize(serverId, viewer), "dana@boutique.test");
    const noCode = new URL(back2);
    noCode.searchParams.delete("code");
    const refusedCode = await callback(noCode, viewer);
    expect(pageCode(refusedCode.text)).toBe("connection_code_missing");

    // Refused at Boutique (access_denied, with or without iss): nothing stored.
    const back4 = await consentAtBoutique(await authorize(serverId, viewer), "dana@boutique.test");
    const denied = new URL(back4);
    denied.searchParams.delete("code");
    denied.searchParams.delete("iss");
    denied.searchParams.set("error", "access_denied");
    expect(pageCode((await callback(denied, viewer)).text)).toBe("connection_denied");

    // Another member's browser cannot finish this member's sign-in.
    const back3 = await consentAtBoutique(await authorize(serverId, viewer), "dana@boutique.test");
    const stolen = await callback(back3, dana);
    expect(stolen.status).toBe(403);
    expect(pageCode(stolen.text)).toBe("connection_not_yours");

    expect(JSON.stringify(await connectionRows(serverId))).toBe(rowsBefore);
    expect(await pending()).toBe(0);
    expect((await myConnections(viewer)).find((c) => c.server.id === serverId)?.state).toBe("not_connected");
  });

  it("the genuine answer, used twice, connects once", async () => {
    const viewer = await tenant.as("viewer");
    const back = await consentAtBoutique(await authorize(serverId, viewer), "leo@boutique.test");
    expect((await callback(back, viewer)).status).toBe(303);
    const again = await callback(back, viewer);
    expect(pageCode(again.text)).toBe("connection_state_invalid");
    expect((await myConnections(viewer)).find((c) => c.server.id === serverId)?.state).toBe("connected");
    expect((await api(`/v1/me/connections/${serverId}`, { method: "DELETE", as: viewer })).status).toBe(204);
    expect((await api(`/v1/me/connections/${serverId}`, { method: "DELETE", as: viewer })).status).toBe(204);
    expect((await myConnections(viewer)).find((c) => c.server.id === serverId)?.state).toBe("not_connected");
  });
});

describe("runs act for their member", () => {
  it("Dana's run lists Dana's orders, Leo's lists Leo's; an API-key run warns and never reaches Boutique", async () => {
    const danaRun = await runAs(dana);
    expect(danaRun.warnings.filter((w) => w.code === "tool_unavailable")).toEqual([]);
    const danaOrders = await call(dana, danaRun.id, key("list_orders"));
    expect(danaOrders).toMatchObject({ ok: true, result: { account: { email: "dana@boutique.test" } } });
    expect(danaOrders.result.orders.map((o: any) => o.order_id).sort()).toEqual(["CMD-1001", "CMD-1002", "CMD-1003"]);

    const leoRun = await runAs(leo);
    const leoOrders = await call(leo, leoRun.id, key("list_orders"));
    expect(leoOrders.result.account.email).toBe("leo@boutique.test");
    expect(leoOrders.result.orders.map((o: any) => o.order_id).sort()).toEqual(["CMD-2001", "CMD-2002"]);

    const before = await counters();
    const keyRun = await api("/v1/runs", { json: { agent: agentId }, as: { key: tenant.key } });
    expect(keyRun.status).toBe(201);
    expect(keyRun.body.warnings).toContainEqual({
      code: "tool_unavailable",
      tool: key("list_orders"),
      reason: {
        code: "mcp_oauth_credentials",
        message: "This connector signs each member in with OAuth; an API run has no member.",
      },
    });
    const refused = await call({ key: tenant.key }, keyRun.body.data.id, key("list_orders"));
    expect(refused.ok).toBe(false);
    expect(refused.error.code).toBe("TOOL_NOT_IN_RUN");
    expect((await counters()).calls).toEqual(before.calls);
  });

  it("a member who has not connected gets mcp_member_not_connected with the connect URL", async () => {
    const { warnings } = await runAs(nina);
    expect(warnings).toContainEqual({
      code: "tool_unavailable",
      tool: key("list_orders"),
      reason: {
        code: "mcp_member_not_connected",
        message: expect.stringContaining("connect your own account first"),
        connect_url: expect.stringMatching(new RegExp(`/connexions/${serverId}/connecter$`)),
      },
    });
  });

  it("an access token about to expire is refreshed once, for concurrent calls too, then the calls succeed", async () => {
    const db = await testDb();
    const danaId = await memberId(tenant, "developer");
    const run = await runAs(dana);
    await db.mcpConnection.updateMany({
      where: { serverId, memberId: danaId },
      data: { expiresAt: new Date(Date.now() + 5_000) },
    });
    const refreshesBefore = (await counters()).refreshes.by_account["dana@boutique.test"] ?? 0;
    const callsBefore = await callsOf("list_orders", "dana@boutique.test");
    const answers = await Promise.all([1, 2, 3].map(() => call(dana, run.id, key("list_orders"))));
    for (const answer of answers) expect(answer.result.account.email).toBe("dana@boutique.test");
    expect((await counters()).refreshes.by_account["dana@boutique.test"]).toBe(refreshesBefore + 1);
    expect(await callsOf("list_orders", "dana@boutique.test")).toBe(callsBefore + 3);
    const row = await db.mcpConnection.findFirstOrThrow({ where: { serverId, memberId: danaId } });
    expect(row.expiresAt!.getTime()).toBeGreaterThan(Date.now() + 60_000);
    // The next call needs no refresh.
    await call(dana, run.id, key("list_orders"));
    expect((await counters()).refreshes.by_account["dana@boutique.test"]).toBe(refreshesBefore + 1);
  });

  it("a write by Dana approved by another member commits with Dana's token, exactly once", async () => {
    const run = await runAs(dana, "read_write");
    const preview = await call(dana, run.id, key("preview_cancel_order"), { order_id: "CMD-1001" });
    expect(preview.ok).toBe(true);
    const proposalId = preview.evidence.proposal.id as string;
    const approver = await tenant.as("approver");
    const proposal = await api(`/v1/proposals/${proposalId}`, { as: approver });
    expect(proposal.body.data.acts_as).toEqual({
      member_id: await memberId(tenant, "developer"),
      email: tenant.emails.developer,
    });
    const approved = await api(`/v1/proposals/${proposalId}/approve`, {
      json: { arguments_sha256: proposal.body.data.arguments_sha256 },
      as: approver,
    });
    expect(approved.status).toBe(200);
    const leoCommitsBefore = await callsOf("commit_cancel_order", "leo@boutique.test");
    const committed = await call(dana, run.id, key("commit_cancel_order"), { proposal_id: proposalId });
    expect(committed).toMatchObject({ ok: true, result: { order_id: "CMD-1001" } });
    await call(dana, run.id, key("commit_cancel_order"), { proposal_id: proposalId });
    expect(await callsOf("commit_cancel_order", "dana@boutique.test")).toBe(1);
    expect(await callsOf("commit_cancel_order", "leo@boutique.test")).toBe(leoCommitsBefore);
    const { orders } = await boutiqueControl("orders");
    expect(orders.find((o: any) => o.order_id === "CMD-1001")).toMatchObject({
      status: "cancelled",
      account_id: "acct_dana",
    });
    expect(Object.values((await counters()).commits)).toEqual([1]);
  });

  it("revoked at Boutique: the call is a typed error, the connection needs reconnecting, nothing was sent", async () => {
    const run = await runAs(leo);
    await call(leo, run.id, key("list_orders"));
    const callsBefore = await callsOf("list_orders", "leo@boutique.test");
    await boutiqueControl("revoke", { email: "leo@boutique.test" });
    const refused = await call(leo, run.id, key("list_orders"));
    expect(refused.ok).toBe(false);
    expect(refused.error).toMatchObject({
      code: "TOOL_UNAVAILABLE",
      reason: {
        code: "mcp_member_not_connected",
        state: "needs_reconnect",
        connect_url: expect.stringMatching(new RegExp(`/connexions/${serverId}/connecter$`)),
      },
    });
    expect(await callsOf("list_orders", "leo@boutique.test")).toBe(callsBefore);
    const mine = (await myConnections(leo)).find((c) => c.server.id === serverId);
    expect(mine).toMatchObject({ state: "needs_reconnect", expires_at: null });
    const row = await (
      await testDb()
    ).mcpConnection.findFirstOrThrow({
      where: { serverId, memberId: await memberId(tenant, "owner") },
    });
    expect(row).toMatchObject({ state: "needs_reconnect", accessTokenCiphertext: null, refreshTokenCiphertext: null });
    const failed = await (
      await testDb()
    ).auditEvent.count({
      where: { organizationId: tenant.organizationId, action: "mcp_connection.refresh_failed" },
    });
    expect(failed).toBe(1);
    // A second call does not ask Boutique again: the member must reconnect.
    const again = await call(leo, run.id, key("list_orders"));
    expect(again.error.reason.state).toBe("needs_reconnect");
    expect(await callsOf("list_orders", "leo@boutique.test")).toBe(callsBefore);
    // Reconnecting restores it.
    expect((await connectAs(serverId, leo, "leo@boutique.test")).status).toBe(303);
    expect((await call(leo, (await runAs(leo)).id, key("list_orders"))).ok).toBe(true);
  });
});

describe("per_user_token", () => {
  it("a member's own token is used for that member only; a member without one gets the new reason", async () => {
    const tokenServer = await createBoutique(tenant, "per_user_token");
    const admin = await tenant.as("admin");
    // The members' « personal tokens » are Boutique access tokens each got for themself.
    const danaToken = (await boutiqueSignIn(boutiqueMcpUrl, new URL(boutiqueUrl).origin, "dana@boutique.test")).saved!
      .access_token;
    const adminToken = (await boutiqueSignIn(boutiqueMcpUrl, new URL(boutiqueUrl).origin, "leo@boutique.test")).saved!
      .access_token;
    const tooLong = await api(`/v1/me/connections/${tokenServer}`, {
      method: "PUT",
      json: { token: "x".repeat(4097) },
      as: admin,
    });
    expect(tooLong.status).toBe(400);
    expect(
      (await api(`/v1/me/connections/${tokenServer}`, { method: "PUT", json: { token: adminToken }, as: admin }))
        .status,
    ).toBe(200);
    expect((await api(`/v1/mcp_servers/${tokenServer}/sync`, { method: "POST", as: admin })).status).toBe(200);
    await reviewAll(tenant, tokenServer);
    const agent = await createAgent(tenant, { tools: [`mcp_${tokenServer}_list_orders`] });
    const put = await api(`/v1/me/connections/${tokenServer}`, { method: "PUT", json: { token: danaToken }, as: dana });
    expect(put.status).toBe(200);
    expect(put.body.data).toMatchObject({ state: "connected", server: { id: tokenServer, auth: "per_user_token" } });
    expect(JSON.stringify(put.body)).not.toContain(danaToken);

    const danaRun = await runAs(dana, "read", agent.id);
    const listed = await call(dana, danaRun.id, `mcp_${tokenServer}_list_orders`);
    expect(listed.result.account.email).toBe("dana@boutique.test");
    // The admin's run, on the same agent, calls with the admin's own token, not Dana's (the last one stored).
    const adminRun = await runAs(admin, "read", agent.id);
    const adminListed = await call(admin, adminRun.id, `mcp_${tokenServer}_list_orders`);
    expect(adminListed.result.account.email).toBe("leo@boutique.test");
    expect((await call(dana, danaRun.id, `mcp_${tokenServer}_list_orders`)).result.account.email).toBe(
      "dana@boutique.test",
    );
    const ninaRun = await runAs(nina, "read", agent.id);
    expect(ninaRun.warnings).toContainEqual(
      expect.objectContaining({
        tool: `mcp_${tokenServer}_list_orders`,
        reason: expect.objectContaining({ code: "mcp_member_not_connected" }),
      }),
    );
    const keyRun = await api("/v1/runs", { json: { agent: agent.id }, as: { key: tenant.key } });
    expect(keyRun.body.warnings[0].reason.code).toBe("mcp_per_user_credentials");
    expect(await storedText()).not.toContain(danaToken);
  });
});

describe("an admin's own client registration", () => {
  it("is used instead of registering; its secret is never returned; bad combinations are typed 400s", async () => {
    const admin = await tenant.as("admin");
    const db = await testDb();
    // The client Guichet registered (dynamically) for the first connector, entered by hand on a second one.
    const registered = await db.mcpOAuthRegistration.findUniqueOrThrow({ where: { serverId } });
    expect(registered.method).toBe("dynamic");
    const created = await api("/v1/mcp_servers", {
      json: {
        name: "Boutique (client saisi)",
        url: boutiqueMcpUrl,
        auth: "oauth",
        oauth_client_id: registered.clientId,
        oauth_client_secret: "s3cret-client-value",
      },
      as: admin,
    });
    expect(created.status).toBe(201);
    expect(created.body.data).toMatchObject({ oauth_client_id: registered.clientId, has_oauth_client_secret: true });
    expect(JSON.stringify(created.body)).not.toContain("s3cret-client-value");
    const manual = created.body.data.id as number;
    const cleared = await api(`/v1/mcp_servers/${manual}`, {
      method: "PATCH",
      json: { oauth_client_secret: null },
      as: admin,
    });
    expect(cleared.body.data).toMatchObject({ oauth_client_id: registered.clientId, has_oauth_client_secret: false });
    const url = new URL(await authorize(manual, dana));
    expect(url.searchParams.get("client_id")).toBe(registered.clientId);
    expect(await db.mcpOAuthRegistration.count({ where: { serverId: manual } })).toBe(0);
    expect(await storedText()).not.toContain("s3cret-client-value");

    for (const body of [
      { name: "x", url: boutiqueMcpUrl, auth: "org_token", token: "t", oauth_client_id: "abc" },
      { name: "x", url: boutiqueMcpUrl, auth: "oauth", oauth_client_secret: "no-id" },
    ]) {
      const refused = await api("/v1/mcp_servers", { json: body, as: admin });
      expect(refused.status).toBe(400);
      expect(refused.body.error.code).toBe("invalid_parameter");
    }
  });
});

describe("admins", () => {
  it("see counts (never tokens), and disconnect everyone", async () => {
    const admin = await tenant.as("admin");
    const counts = await api(`/v1/mcp_servers/${serverId}/connections`, { as: admin });
    expect(counts.status).toBe(200);
    expect(counts.body.data).toEqual({ connected: 3, needs_reconnect: 0 });
    expect((await api(`/v1/mcp_servers/${serverId}/connections`, { as: dana })).status).toBe(403);
    const server = await api(`/v1/mcp_servers/${serverId}`, { as: admin });
    expect(server.body.data).toMatchObject({ oauth_client_id: null, has_oauth_client_secret: false });
  });

  it("removing a member deletes their connections", async () => {
    const db = await testDb();
    const viewerId = await memberId(tenant, "viewer");
    const viewer = await tenant.as("viewer");
    expect((await connectAs(serverId, viewer, "dana@boutique.test")).status).toBe(303);
    expect(await db.mcpConnection.count({ where: { memberId: viewerId } })).toBe(1);
    const removed = await api(`/v1/members/${viewerId}`, { method: "DELETE", as: await tenant.as("owner") });
    expect(removed.status).toBeLessThan(300);
    expect(await db.mcpConnection.count({ where: { memberId: viewerId } })).toBe(0);
  });

  it("moving the connector to another origin drops every member's tokens and the client registration", async () => {
    const db = await testDb();
    const moved = await createBoutique(tenant);
    expect((await connectAs(moved, dana, "dana@boutique.test")).status).toBe(303);
    expect((await connectAs(moved, leo, "leo@boutique.test")).status).toBe(303);
    expect(await db.mcpConnection.count({ where: { serverId: moved, accessTokenCiphertext: { not: null } } })).toBe(2);
    expect(await db.mcpOAuthRegistration.count({ where: { serverId: moved } })).toBe(1);
    const port = new URL(boutiqueUrl).port;
    const patched = await api(`/v1/mcp_servers/${moved}`, {
      method: "PATCH",
      json: { url: `http://boutique-moved.test:${port}/mcp` },
      as: await tenant.as("admin"),
    });
    expect(patched.status).toBe(200);
    expect(await db.mcpConnection.count({ where: { serverId: moved } })).toBe(0);
    expect(await db.mcpOAuthRegistration.count({ where: { serverId: moved } })).toBe(0);
    const disconnected = await db.auditEvent.findFirst({
      where: { organizationId: tenant.organizationId, action: "mcp_connection.disconnected", targetId: String(moved) },
    });
    expect(disconnected).not.toBeNull();
  });

  it("disconnect everyone", async () => {
    const admin = await tenant.as("admin");
    expect((await api(`/v1/mcp_servers/${serverId}/connections`, { method: "DELETE", as: admin })).status).toBe(204);
    expect(await connectionRows(serverId)).toEqual([]);
    expect((await myConnections(dana)).find((c) => c.server.id === serverId)?.state).toBe("not_connected");
  });
});
