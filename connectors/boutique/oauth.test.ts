import http from "node:http";
import {
  discoverAuthorizationServerMetadata,
  exchangeAuthorization,
  refreshAuthorization,
  registerClient,
  startAuthorization,
} from "@modelcontextprotocol/sdk/client/auth.js";
import { InvalidGrantError } from "@modelcontextprotocol/sdk/server/auth/errors.js";
import type { AuthorizationServerMetadata } from "@modelcontextprotocol/sdk/shared/auth.js";
import { decodeJwt } from "jose";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startBoutique, type BoutiqueServer } from "./server";
import {
  Browser,
  call,
  connect,
  consentInBrowser,
  formAction,
  MemoryOAuthClient,
  REDIRECT_URL,
  signIn,
  structured,
} from "./test-helpers";

// Boutique's authorization server and the MCP server's door, over real HTTP,
// driven by the MCP SDK's client auth module as an MCP client would.

let boutique: BoutiqueServer;
let metadata: AuthorizationServerMetadata;

beforeAll(async () => {
  boutique = await startBoutique({
    controls: true,
    clients: [{ clientId: "guichet-admin", clientSecret: "admin-entered-secret-123", redirectUris: [REDIRECT_URL] }],
  });
  metadata = (await discoverAuthorizationServerMetadata(boutique.issuer))!;
});
afterAll(async () => {
  await boutique?.close();
});

const mcpStatus = (token?: string) =>
  fetch(boutique.mcpUrl, {
    method: "POST",
    headers: {
      "content-type": "application/json",
      accept: "application/json, text/event-stream",
      ...(token ? { authorization: `Bearer ${token}` } : {}),
    },
    body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/list", params: {} }),
  });

describe("discovery", () => {
  it("publishes RFC 8414 and OpenID metadata: code + PKCE S256 only, iss in the response, open registration", async () => {
    for (const path of ["/.well-known/oauth-authorization-server", "/.well-known/openid-configuration"]) {
      const res = await fetch(`${boutique.url}${path}`);
      expect(res.status).toBe(200);
      const doc = await res.json();
      expect(doc.issuer).toBe(boutique.issuer);
      expect(doc.response_types_supported).toEqual(["code"]);
      expect(doc.code_challenge_methods_supported).toEqual(["S256"]);
      expect(doc.authorization_response_iss_parameter_supported).toBe(true);
      expect(doc.grant_types_supported).toEqual(expect.arrayContaining(["authorization_code", "refresh_token"]));
      expect(doc.grant_types_supported).not.toContain("implicit");
      expect(doc.registration_endpoint).toBe(`${boutique.issuer}/reg`);
      expect(doc.token_endpoint_auth_methods_supported).toEqual(
        expect.arrayContaining(["none", "client_secret_basic"]),
      );
      expect(doc.scopes_supported).toContain("orders");
    }
  });

  it("publishes RFC 9728 protected resource metadata, at the path form and the root form", async () => {
    for (const path of ["/.well-known/oauth-protected-resource/mcp", "/.well-known/oauth-protected-resource"]) {
      const res = await fetch(`${boutique.url}${path}`);
      expect(res.status).toBe(200);
      expect(await res.json()).toMatchObject({
        resource: boutique.mcpUrl,
        authorization_servers: [boutique.issuer],
        scopes_supported: ["orders"],
      });
    }
  });

  it("answers 401 with resource_metadata without a token, and invalid_token with a bad one", async () => {
    const bare = await mcpStatus();
    expect(bare.status).toBe(401);
    const challenge = bare.headers.get("www-authenticate")!;
    expect(challenge).toMatch(/^Bearer /);
    expect(challenge).toContain(`resource_metadata="${boutique.url}/.well-known/oauth-protected-resource/mcp"`);
    const bad = await mcpStatus("not-a-token");
    expect(bad.status).toBe(401);
    expect(bad.headers.get("www-authenticate")).toContain('error="invalid_token"');
    expect(bad.headers.get("www-authenticate")).toContain("resource_metadata=");
  });
});

describe("authorization code flow", () => {
  it("signs Dana in with the SDK's auth(): DCR, PKCE, state, iss; the token is a JWT for the MCP resource", async () => {
    const dana = await signIn(boutique.mcpUrl, boutique.issuer, "dana@boutique.test");
    const url = dana.authorizationUrl!;
    expect(url.searchParams.get("code_challenge_method")).toBe("S256");
    expect(url.searchParams.get("resource")).toBe(boutique.mcpUrl);
    expect(dana.client?.client_id).toBeTruthy(); // registered dynamically
    const tokens = dana.saved!;
    expect(tokens.refresh_token).toBeTruthy();
    expect(tokens.expires_in).toBe(900);
    const claims = decodeJwt(tokens.access_token);
    expect(claims).toMatchObject({ aud: boutique.mcpUrl, iss: boutique.issuer, sub: "acct_dana", scope: "orders" });
    expect(claims.exp! - claims.iat!).toBe(900);
    expect((await mcpStatus(tokens.access_token)).status).toBe(200);
  });

  it("refuses a wrong password on the login page, in French", async () => {
    const client = new MemoryOAuthClient();
    const { authorizationUrl } = await startAuthorization(boutique.issuer, {
      metadata,
      clientInformation: await registerClient(boutique.issuer, { metadata, clientMetadata: client.clientMetadata }),
      redirectUrl: REDIRECT_URL,
      scope: "orders",
      state: "st-1",
      resource: new URL(boutique.mcpUrl),
    });
    const browser = new Browser();
    const login = await browser.follow(authorizationUrl, REDIRECT_URL);
    const html = await login.res!.text();
    expect(html).toContain("Mot de passe");
    const wrong = await browser.submit(
      login.url,
      formAction(html, "login"),
      { email: "dana@boutique.test", password: "nope" },
      REDIRECT_URL,
    );
    expect(wrong.res!.status).toBe(401);
    expect(await wrong.res!.text()).toContain("Adresse e-mail ou mot de passe incorrect.");
  });

  it("sends the client back with access_denied when the customer presses « Refuser »", async () => {
    const info = await registerClient(boutique.issuer, {
      metadata,
      clientMetadata: new MemoryOAuthClient().clientMetadata,
    });
    const { authorizationUrl } = await startAuthorization(boutique.issuer, {
      metadata,
      clientInformation: info,
      redirectUrl: REDIRECT_URL,
      scope: "orders",
      state: "st-5",
      resource: new URL(boutique.mcpUrl),
    });
    const browser = new Browser();
    const login = await browser.follow(authorizationUrl, REDIRECT_URL);
    const consent = await browser.submit(
      login.url,
      formAction(await login.res!.text(), "login"),
      { email: "leo@boutique.test", password: "boutique-demo" },
      REDIRECT_URL,
    );
    const refused = await browser.submit(consent.url, formAction(await consent.res!.text(), "abort"), {}, REDIRECT_URL);
    expect(refused.res).toBeUndefined();
    expect(refused.url.searchParams.get("error")).toBe("access_denied");
    expect(refused.url.searchParams.get("state")).toBe("st-5");
    expect(refused.url.searchParams.get("code")).toBeNull();
  });

  it("refuses PKCE plain and a request without a code challenge", async () => {
    const info = await registerClient(boutique.issuer, {
      metadata,
      clientMetadata: new MemoryOAuthClient().clientMetadata,
    });
    const { authorizationUrl, codeVerifier } = await startAuthorization(boutique.issuer, {
      metadata,
      clientInformation: info,
      redirectUrl: REDIRECT_URL,
      scope: "orders",
      state: "st-2",
      resource: new URL(boutique.mcpUrl),
    });
    const plain = new URL(authorizationUrl);
    plain.searchParams.set("code_challenge_method", "plain");
    plain.searchParams.set("code_challenge", codeVerifier);
    const none = new URL(authorizationUrl);
    none.searchParams.delete("code_challenge_method");
    none.searchParams.delete("code_challenge");
    for (const url of [plain, none]) {
      const back = await new Browser().follow(url, REDIRECT_URL);
      expect(back.res).toBeUndefined(); // sent straight back, no login page
      expect(back.url.searchParams.get("error")).toBe("invalid_request");
      expect(back.url.searchParams.get("code")).toBeNull();
      expect(back.url.searchParams.get("iss")).toBe(boutique.issuer);
    }
    // The S256 request itself is fine.
    const ok = await consentInBrowser(authorizationUrl, "leo@boutique.test");
    expect(ok.searchParams.get("code")).toBeTruthy();
    // …and its code needs the right verifier.
    await expect(
      exchangeAuthorization(boutique.issuer, {
        metadata,
        clientInformation: info,
        authorizationCode: ok.searchParams.get("code")!,
        codeVerifier: "x".repeat(50),
        redirectUri: REDIRECT_URL,
        resource: new URL(boutique.mcpUrl),
      }),
    ).rejects.toBeInstanceOf(InvalidGrantError);
  });

  it("refuses a token issued for another resource of the shop", async () => {
    const other = `${boutique.url}/reports`;
    const info = await registerClient(boutique.issuer, {
      metadata,
      clientMetadata: new MemoryOAuthClient().clientMetadata,
    });
    const { authorizationUrl, codeVerifier } = await startAuthorization(boutique.issuer, {
      metadata,
      clientInformation: info,
      redirectUrl: REDIRECT_URL,
      scope: "orders",
      state: "st-3",
      resource: new URL(other),
    });
    const back = await consentInBrowser(authorizationUrl, "dana@boutique.test");
    const tokens = await exchangeAuthorization(boutique.issuer, {
      metadata,
      clientInformation: info,
      authorizationCode: back.searchParams.get("code")!,
      codeVerifier,
      redirectUri: REDIRECT_URL,
      resource: new URL(other),
    });
    expect(decodeJwt(tokens.access_token)).toMatchObject({ aud: other, sub: "acct_dana", scope: "orders" });
    const res = await mcpStatus(tokens.access_token);
    expect(res.status).toBe(401);
    expect(res.headers.get("www-authenticate")).toContain('error="invalid_token"');
  });

  it("works with a pre-registered confidential client, and refuses a wrong secret", async () => {
    const admin = new MemoryOAuthClient(
      { token_endpoint_auth_method: "client_secret_basic" },
      { client_id: "guichet-admin", client_secret: "admin-entered-secret-123" },
    );
    await signIn(boutique.mcpUrl, boutique.issuer, "leo@boutique.test", admin);
    expect(decodeJwt(admin.saved!.access_token)).toMatchObject({ client_id: "guichet-admin", sub: "acct_leo" });

    const res = await fetch(metadata.token_endpoint, {
      method: "POST",
      headers: {
        "content-type": "application/x-www-form-urlencoded",
        authorization: `Basic ${Buffer.from("guichet-admin:wrong-secret").toString("base64")}`,
      },
      body: new URLSearchParams({ grant_type: "refresh_token", refresh_token: admin.saved!.refresh_token! }),
    });
    expect(res.status).toBe(401);
    expect((await res.json()).error).toBe("invalid_client");
  });
});

describe("refresh tokens", () => {
  const refresh = (client: MemoryOAuthClient, refreshToken: string) =>
    refreshAuthorization(boutique.issuer, {
      metadata,
      clientInformation: client.client!,
      refreshToken,
      resource: new URL(boutique.mcpUrl),
    });

  it("rotates: each refresh returns a new refresh token, the old one is then refused (and ends the grant)", async () => {
    boutique.controls!.resetCounters();
    const leo = await signIn(boutique.mcpUrl, boutique.issuer, "leo@boutique.test");
    const first = leo.saved!.refresh_token!;
    const second = await refresh(leo, first);
    expect(second.refresh_token).toBeTruthy();
    expect(second.refresh_token).not.toBe(first);
    expect(decodeJwt(second.access_token)).toMatchObject({ aud: boutique.mcpUrl, sub: "acct_leo" });
    expect((await mcpStatus(second.access_token)).status).toBe(200);
    expect(boutique.controls!.counters().refreshes).toEqual({ total: 1, by_account: { "leo@boutique.test": 1 } });

    await expect(refresh(leo, first)).rejects.toBeInstanceOf(InvalidGrantError);
    // A replayed refresh token is a stolen one: the whole grant goes, the rotated token and its access token too.
    await expect(refresh(leo, second.refresh_token!)).rejects.toBeInstanceOf(InvalidGrantError);
    expect((await mcpStatus(second.access_token)).status).toBe(401);
    expect(boutique.controls!.counters().refreshes.total).toBe(1);
  });

  it("answers invalid_grant once the account's grants are revoked, and its access tokens stop working", async () => {
    const dana = await signIn(boutique.mcpUrl, boutique.issuer, "dana@boutique.test");
    const leo = await signIn(boutique.mcpUrl, boutique.issuer, "leo@boutique.test");
    expect(boutique.controls!.refreshTokensOf("dana@boutique.test")).toBeGreaterThan(0);
    expect(boutique.controls!.revokeAccount("dana@boutique.test").revoked_grants).toBeGreaterThan(0);
    expect(boutique.controls!.refreshTokensOf("dana@boutique.test")).toBe(0);
    await expect(refresh(dana, dana.saved!.refresh_token!)).rejects.toBeInstanceOf(InvalidGrantError);
    expect((await mcpStatus(dana.saved!.access_token)).status).toBe(401);
    // Léo is untouched.
    expect((await mcpStatus(leo.saved!.access_token)).status).toBe(200);
    expect((await refresh(leo, leo.saved!.refresh_token!)).access_token).toBeTruthy();
  });

  it("issues access tokens with the TTL set through the controls; an expired one is refused, a refresh brings a new one", async () => {
    boutique.controls!.setAccessTokenTtl(1);
    try {
      const dana = await signIn(boutique.mcpUrl, boutique.issuer, "dana@boutique.test");
      expect(dana.saved!.expires_in).toBe(1);
      await new Promise((r) => setTimeout(r, 2_100));
      expect((await mcpStatus(dana.saved!.access_token)).status).toBe(401);
      boutique.controls!.setAccessTokenTtl(60);
      const renewed = await refresh(dana, dana.saved!.refresh_token!);
      expect(renewed.expires_in).toBe(60);
      const client = await connect(boutique.mcpUrl, renewed.access_token);
      expect(structured(await call(client, "list_orders", {})).account.email).toBe("dana@boutique.test");
      await client.close();
    } finally {
      boutique.controls!.setAccessTokenTtl(900);
    }
  });
});

describe("bad input gets a 4xx, never a 500", () => {
  it("answers unknown or foreign interactions, oversized forms and bad OAuth requests with typed errors", async () => {
    const unknown = await fetch(`${boutique.url}/interaction/not-a-real-uid`);
    expect(unknown.status).toBe(400);
    expect(await unknown.text()).toContain("expiré");
    const post = await fetch(`${boutique.url}/interaction/not-a-real-uid/login`, {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded" },
      body: "email=dana%40boutique.test&password=boutique-demo",
    });
    expect(post.status).toBe(400);

    // A real interaction, an oversized form.
    const info = await registerClient(boutique.issuer, {
      metadata,
      clientMetadata: new MemoryOAuthClient().clientMetadata,
    });
    const { authorizationUrl } = await startAuthorization(boutique.issuer, {
      metadata,
      clientInformation: info,
      redirectUrl: REDIRECT_URL,
      scope: "orders",
      state: "st-4",
      resource: new URL(boutique.mcpUrl),
    });
    const browser = new Browser();
    const login = await browser.follow(authorizationUrl, REDIRECT_URL);
    const action = formAction(await login.res!.text(), "login");
    const big = await browser.request(new URL(action, login.url), {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded" },
      body: `email=${"a".repeat(70_000)}`,
    });
    expect(big.status).toBe(413);
    // Consent before login is refused.
    const early = await browser.request(new URL(action.replace(/login$/, "confirm"), login.url), { method: "POST" });
    expect(early.status).toBe(400);

    const grant = await fetch(metadata.token_endpoint, {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded" },
      body: new URLSearchParams({
        grant_type: "password",
        client_id: info.client_id,
        username: "dana@boutique.test",
        password: "boutique-demo",
      }),
    });
    expect(grant.status).toBe(400);
    expect((await grant.json()).error).toBe("unsupported_grant_type");
    const reg = await fetch(metadata.registration_endpoint!, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ redirect_uris: ["not a url"] }),
    });
    expect(reg.status).toBe(400);
    expect((await reg.json()).error).toMatch(/^invalid_(redirect_uri|client_metadata)$/);
  });

  it("answers a bad MCP body 400, GET 405, and a foreign Host 403", async () => {
    const dana = await signIn(boutique.mcpUrl, boutique.issuer, "dana@boutique.test");
    const headers = {
      authorization: `Bearer ${dana.saved!.access_token}`,
      "content-type": "application/json",
      accept: "application/json, text/event-stream",
    };
    const parse = await fetch(boutique.mcpUrl, { method: "POST", headers, body: "{nope" });
    expect(parse.status).toBe(400);
    expect((await parse.json()).error.code).toBe(-32700);
    expect((await fetch(boutique.mcpUrl, { headers })).status).toBe(405);
    const rebound = await new Promise<number>((resolve, reject) => {
      const url = new URL(boutique.mcpUrl);
      http
        .request(
          {
            host: url.hostname,
            port: url.port,
            path: "/mcp",
            method: "POST",
            headers: { ...headers, host: "evil.example" },
          },
          (res) => {
            res.resume();
            resolve(res.statusCode!);
          },
        )
        .on("error", reject)
        .end("{}");
    });
    expect(rebound).toBe(403);
  });
});

describe("controls", () => {
  it("are off unless asked for: no object, 404 over HTTP", async () => {
    const plain = await startBoutique();
    try {
      expect(plain.controls).toBeNull();
      expect((await fetch(`${plain.url}/__control/counters`)).status).toBe(404);
    } finally {
      await plain.close();
    }
  });

  it("answer over HTTP when on: TTL, revoke, counters", async () => {
    const ttl = await fetch(`${boutique.url}/__control/access-token-ttl`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ seconds: 0 }),
    });
    expect(ttl.status).toBe(400);
    const unknown = await fetch(`${boutique.url}/__control/revoke`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ email: "nobody@boutique.test" }),
    });
    expect(unknown.status).toBe(404);
    const counters = await (await fetch(`${boutique.url}/__control/counters`)).json();
    expect(counters).toHaveProperty("refreshes.total");
    expect(counters).toHaveProperty("calls");
  });
});
