import { createHash, randomBytes } from "node:crypto";
import type { OAuthClientProvider } from "@modelcontextprotocol/sdk/client/auth.js";
import type {
  OAuthClientInformationMixed,
  OAuthClientMetadata,
  OAuthTokens,
} from "@modelcontextprotocol/sdk/shared/auth.js";
import { chromium, type Browser } from "playwright";
import { startTestServer } from "@/tests/support/http-server";
import { baseUrl, signIn, testDb, type Caller } from "./helpers";

// What the OAuth suites share: an MCP client's side of the flow (the SDK's
// OAuthClientProvider, kept in memory), its loopback callback, the member's
// side in Chromium (sign-in and consent) or over plain HTTP for refusals, and
// the state Guichet stored.

export interface Callback {
  url: string;
  /** The next query the callback receives (code, state, iss or error). */
  next(): Promise<URLSearchParams>;
  close(): Promise<void>;
}

/** A native client's loopback redirect URI (RFC 8252): a tiny server that hands over what it receives. */
export async function loopbackCallback(): Promise<Callback> {
  const waiting: Array<(query: URLSearchParams) => void> = [];
  const received: URLSearchParams[] = [];
  const server = await startTestServer((req, res) => {
    const url = new URL(req.url ?? "/", "http://x");
    // Only the redirect counts: the browser also asks this origin for its favicon.
    if (url.pathname !== "/callback") return void res.writeHead(404).end();
    const query = url.searchParams;
    const resolve = waiting.shift();
    if (resolve) resolve(query);
    else received.push(query);
    res.writeHead(200, { "content-type": "text/plain" }).end("ok");
  });
  return {
    url: `${server.origin.replace("localhost", "127.0.0.1")}/callback`,
    next: () => {
      const early = received.shift();
      return early ? Promise.resolve(early) : new Promise((resolve) => waiting.push(resolve));
    },
    close: () => server.close(),
  };
}

/** The SDK's client side, in memory: what a desktop client would keep on disk. */
export class MemoryOAuthProvider implements OAuthClientProvider {
  info: OAuthClientInformationMixed | undefined;
  saved: OAuthTokens | undefined;
  verifier = "";
  authorizationUrl: URL | undefined;
  clientMetadataUrl?: string;

  constructor(
    readonly redirectUrl: string,
    private readonly onRedirect: (url: URL) => Promise<void>,
    options: { metadataUrl?: string; name?: string; scope?: string } = {},
  ) {
    this.clientMetadataUrl = options.metadataUrl;
    this.clientMetadata = {
      client_name: options.name ?? "Claude",
      redirect_uris: [redirectUrl],
      grant_types: ["authorization_code", "refresh_token"],
      response_types: ["code"],
      token_endpoint_auth_method: "none",
      ...(options.scope ? { scope: options.scope } : {}),
    };
  }
  readonly clientMetadata: OAuthClientMetadata;
  clientInformation() {
    return this.info;
  }
  saveClientInformation(info: OAuthClientInformationMixed) {
    this.info = info;
  }
  tokens() {
    return this.saved;
  }
  saveTokens(tokens: OAuthTokens) {
    this.saved = tokens;
  }
  async redirectToAuthorization(url: URL) {
    this.authorizationUrl = url;
    await this.onRedirect(url);
  }
  saveCodeVerifier(verifier: string) {
    this.verifier = verifier;
  }
  codeVerifier() {
    return this.verifier;
  }
}

let browser: Browser | undefined;

/** Debian's Chromium, as the Playwright suite launches it. */
export async function theBrowser(): Promise<Browser> {
  browser ??= await chromium.launch({
    executablePath: process.env.CHROMIUM_PATH ?? "/usr/bin/chromium",
    args: [
      "--no-sandbox",
      "--disable-gpu",
      "--disable-background-networking",
      "--disable-component-update",
      "--disable-sync",
      "--no-first-run",
    ],
  });
  return browser;
}

export async function closeBrowser(): Promise<void> {
  await browser?.close();
  browser = undefined;
}

/** A member opens the authorization URL in Chromium, signs in to the console and answers the consent screen. */
export async function consentInChromium(
  url: URL,
  email: string,
  decision: "Autoriser" | "Refuser",
  inspect?: (page: import("playwright").Page) => Promise<void>,
  at = baseUrl,
): Promise<void> {
  const context = await (await theBrowser()).newContext({ locale: "fr-FR" });
  try {
    const page = await context.newPage();
    await page.goto(url.toString());
    await page.getByLabel("Adresse e-mail").fill(email);
    await page.getByLabel("Mot de passe").fill("guichet-demo");
    await page.getByRole("button", { name: "Se connecter" }).click();
    await page.getByRole("button", { name: "Refuser" }).waitFor();
    await inspect?.(page);
    await page.getByRole("button", { name: decision }).click();
    await page.waitForURL((target) => !target.toString().startsWith(at), { timeout: 15_000 });
  } finally {
    await context.close();
  }
}

export function pkce(): { verifier: string; challenge: string } {
  const verifier = randomBytes(32).toString("base64url");
  return { verifier, challenge: createHash("sha256").update(verifier).digest("base64url") };
}

export function resourceOf(agentId: string): string {
  return `${baseUrl}/mcp/agents/${agentId}`;
}

/** Dynamic Client Registration over plain HTTP. */
export async function register(redirectUris: string[], name = "Client de test"): Promise<string> {
  const response = await fetch(`${baseUrl}/oauth/register`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ client_name: name, redirect_uris: redirectUris, token_endpoint_auth_method: "none" }),
  });
  if (response.status !== 201) throw new Error(`register: HTTP ${response.status} ${await response.text()}`);
  return ((await response.json()) as { client_id: string }).client_id;
}

/** GET /oauth/authorize without following redirects: the status and where it sends the browser. */
export async function authorizeRequest(params: Record<string, string>, as?: Caller) {
  const response = await fetch(`${baseUrl}/oauth/authorize?${new URLSearchParams(params)}`, {
    redirect: "manual",
    headers: as?.cookie ? { cookie: as.cookie } : {},
  });
  const location = response.headers.get("location");
  return {
    status: response.status,
    location: location ? new URL(location, baseUrl) : null,
    text: await response.text(),
  };
}

/**
 * The member's side over HTTP (for refusals; the happy path is in Chromium):
 * signs in, reads the consent screen's form token and posts the decision as the
 * form would. Returns where Guichet sends the browser back.
 */
export async function consentOverHttp(
  params: Record<string, string>,
  email: string,
  decision: "allow" | "deny",
  options: { caller?: Caller; origin?: string; csrf?: string } = {},
): Promise<{ status: number; redirect: URL | null; text: string }> {
  const caller = options.caller ?? (await signIn(email));
  const query = new URLSearchParams(params);
  const page = await fetch(`${baseUrl}/oauth/consentement?${query}`, {
    headers: { cookie: caller.cookie! },
    redirect: "manual",
  });
  const html = await page.text();
  const csrf = options.csrf ?? /name="csrf" value="([^"]*)"/.exec(html)?.[1] ?? "";
  const form = new URLSearchParams({ ...params, csrf, decision });
  const response = await fetch(`${baseUrl}/oauth/authorize`, {
    method: "POST",
    headers: {
      cookie: caller.cookie!,
      origin: options.origin ?? baseUrl,
      "content-type": "application/x-www-form-urlencoded",
    },
    body: form.toString(),
  });
  const text = await response.text();
  const target = /http-equiv="refresh" content="0;url=([^"]+)"/.exec(text)?.[1];
  const decoded = target?.replace(/&#(\d+);/g, (_m, code: string) => String.fromCharCode(Number(code)));
  return { status: response.status, redirect: decoded ? new URL(decoded) : null, text };
}

export async function tokenRequest(form: Record<string, string>) {
  const response = await fetch(`${baseUrl}/oauth/token`, {
    method: "POST",
    headers: { "content-type": "application/x-www-form-urlencoded" },
    body: new URLSearchParams(form).toString(),
  });
  return { status: response.status, body: (await response.json()) as Record<string, any> };
}

/** A full grant over HTTP: registration, consent, code exchange. */
export async function grantOverHttp(agentId: string, email: string, scope = "mcp:read_write") {
  const redirectUri = "http://127.0.0.1:9/callback";
  const clientId = await register([redirectUri]);
  const { verifier, challenge } = pkce();
  const params = authorizationParams(clientId, redirectUri, challenge, agentId, scope);
  const consent = await consentOverHttp(params, email, "allow");
  const code = consent.redirect?.searchParams.get("code");
  if (!code) throw new Error(`no code: ${consent.status} ${consent.redirect} ${consent.text.slice(0, 300)}`);
  const tokens = await tokenRequest({
    grant_type: "authorization_code",
    code,
    code_verifier: verifier,
    client_id: clientId,
    redirect_uri: redirectUri,
    resource: resourceOf(agentId),
  });
  if (tokens.status !== 200) throw new Error(`token: ${tokens.status} ${JSON.stringify(tokens.body)}`);
  return { clientId, redirectUri, code, verifier, tokens: tokens.body };
}

export function authorizationParams(
  clientId: string,
  redirectUri: string,
  challenge: string,
  agentId: string,
  scope = "mcp:read_write",
): Record<string, string> {
  return {
    response_type: "code",
    client_id: clientId,
    redirect_uri: redirectUri,
    code_challenge: challenge,
    code_challenge_method: "S256",
    state: "etat-123",
    scope,
    resource: resourceOf(agentId),
  };
}

/** A raw MCP initialize with a bearer token: the status, the challenge header and the body. */
export async function initializeWith(token: string | null, url: string) {
  const response = await fetch(url, {
    method: "POST",
    headers: {
      "content-type": "application/json",
      accept: "application/json, text/event-stream",
      ...(token ? { authorization: `Bearer ${token}` } : {}),
    },
    body: JSON.stringify({
      jsonrpc: "2.0",
      id: 1,
      method: "initialize",
      params: { protocolVersion: "2025-11-25", capabilities: {}, clientInfo: { name: "raw", version: "1" } },
    }),
  });
  return { status: response.status, challenge: response.headers.get("www-authenticate"), body: await response.text() };
}

export async function grantsOf(organizationId: string) {
  const db = await testDb();
  return db.oAuthGrant.findMany({ where: { organizationId }, orderBy: { createdAt: "asc" } });
}
