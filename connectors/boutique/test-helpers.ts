/* eslint-disable @typescript-eslint/no-explicit-any -- loose results on purpose: the tests assert their shape */
// Shared helpers of the Boutique tests (not a test file itself): an OAuth
// client built on the MCP SDK's client auth module, and a small cookie-keeping
// "browser" that fills Boutique's login and consent forms over HTTP.

import { randomBytes } from "node:crypto";
import { auth, type OAuthClientProvider } from "@modelcontextprotocol/sdk/client/auth.js";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import type {
  OAuthClientInformationMixed,
  OAuthClientMetadata,
  OAuthTokens,
} from "@modelcontextprotocol/sdk/shared/auth.js";
import { CallToolResultSchema, type CallToolResult } from "@modelcontextprotocol/sdk/types.js";

/** Where the authorization server sends the browser back; nothing listens there, the browser stops before it. */
export const REDIRECT_URL = "http://127.0.0.1:9/oauth/callback";

/** An OAuthClientProvider keeping everything in memory, as Guichet keeps it in its database. */
export class MemoryOAuthClient implements OAuthClientProvider {
  client?: OAuthClientInformationMixed;
  saved?: OAuthTokens;
  verifier?: string;
  authorizationUrl?: URL;
  readonly stateValue = randomBytes(16).toString("base64url");

  constructor(
    readonly metadata: Partial<OAuthClientMetadata> = {},
    preRegistered?: OAuthClientInformationMixed,
  ) {
    this.client = preRegistered;
  }

  get redirectUrl() {
    return REDIRECT_URL;
  }
  get clientMetadata(): OAuthClientMetadata {
    return {
      client_name: "Guichet (tests)",
      redirect_uris: [REDIRECT_URL],
      grant_types: ["authorization_code", "refresh_token"],
      response_types: ["code"],
      token_endpoint_auth_method: "none",
      ...this.metadata,
    };
  }
  state() {
    return this.stateValue;
  }
  clientInformation() {
    return this.client;
  }
  saveClientInformation(info: OAuthClientInformationMixed) {
    this.client = info;
  }
  tokens() {
    return this.saved;
  }
  saveTokens(tokens: OAuthTokens) {
    this.saved = tokens;
  }
  redirectToAuthorization(url: URL) {
    this.authorizationUrl = url;
  }
  saveCodeVerifier(verifier: string) {
    this.verifier = verifier;
  }
  codeVerifier() {
    if (!this.verifier) throw new Error("no code verifier saved");
    return this.verifier;
  }
}

/** A browser reduced to what the flow needs: cookies and manual redirects. */
export class Browser {
  private readonly cookies = new Map<string, string>();

  private remember(res: Response) {
    for (const line of res.headers.getSetCookie()) {
      const [pair, ...attrs] = line.split(";");
      const eq = pair.indexOf("=");
      const name = pair.slice(0, eq).trim();
      const value = pair.slice(eq + 1).trim();
      const expired = attrs.some((a) => {
        const [k, v] = a.trim().split("=");
        return (
          (k.toLowerCase() === "max-age" && Number(v) <= 0) ||
          (k.toLowerCase() === "expires" && Date.parse(v) < Date.now())
        );
      });
      if (expired || value === "") this.cookies.delete(name);
      else this.cookies.set(name, value);
    }
  }

  async request(url: string | URL, init: RequestInit = {}): Promise<Response> {
    const headers = new Headers(init.headers);
    if (this.cookies.size) headers.set("cookie", [...this.cookies].map(([k, v]) => `${k}=${v}`).join("; "));
    const res = await fetch(url, { ...init, headers, redirect: "manual" });
    this.remember(res);
    return res;
  }

  /** Follows redirects until a page answers, or until the next hop leaves for `stopAt` (returned, not fetched). */
  async follow(url: string | URL, stopAt: string, init: RequestInit = {}): Promise<{ res?: Response; url: URL }> {
    let current = new URL(url);
    let res = await this.request(current, init);
    for (let hops = 0; hops < 10; hops++) {
      const location = res.headers.get("location");
      if (res.status < 300 || res.status >= 400 || !location) return { res, url: current };
      current = new URL(location, current);
      if (current.href.startsWith(stopAt)) return { url: current };
      res = await this.request(current);
    }
    throw new Error("too many redirects");
  }

  async submit(page: URL, action: string, fields: Record<string, string>, stopAt: string) {
    return this.follow(new URL(action, page), stopAt, {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded" },
      body: new URLSearchParams(fields).toString(),
    });
  }
}

export const formAction = (html: string, suffix: string): string => {
  const m = new RegExp(`action="([^"]*/${suffix})"`).exec(html);
  if (!m) throw new Error(`no form ending in /${suffix} on the page`);
  return m[1];
};

/**
 * Plays the person at the authorization server: from the authorization URL,
 * signs in with Boutique's login form and presses « Autoriser ». Returns the
 * URL the browser is sent back to (code, state, iss, or an error).
 */
export async function consentInBrowser(
  authorizationUrl: URL,
  email: string,
  password = "boutique-demo",
  browser = new Browser(),
): Promise<URL> {
  const login = await browser.follow(authorizationUrl, REDIRECT_URL);
  if (!login.res) return login.url;
  const loginHtml = await login.res.text();
  if (!loginHtml.includes("Adresse e-mail") || !loginHtml.includes("Se connecter"))
    throw new Error(`not the login page (${login.res.status}): ${loginHtml.slice(0, 300)}`);
  const afterLogin = await browser.submit(login.url, formAction(loginHtml, "login"), { email, password }, REDIRECT_URL);
  if (!afterLogin.res) return afterLogin.url;
  const consentHtml = await afterLogin.res.text();
  if (!consentHtml.includes("Autoriser"))
    throw new Error(`not the consent page (${afterLogin.res.status}): ${consentHtml.slice(0, 300)}`);
  const done = await browser.submit(afterLogin.url, formAction(consentHtml, "confirm"), {}, REDIRECT_URL);
  if (done.res)
    throw new Error(`the flow ended on a page (${done.res.status}): ${(await done.res.text()).slice(0, 300)}`);
  return done.url;
}

/**
 * The whole authorization-code flow the way an MCP client does it, with the
 * SDK's `auth()`: discovery from the MCP URL, registration, PKCE, then the
 * browser part, the `state` and `iss` checks, and the code exchange.
 */
export async function signIn(
  mcpUrl: string,
  issuer: string,
  email: string,
  client = new MemoryOAuthClient(),
): Promise<MemoryOAuthClient> {
  if ((await auth(client, { serverUrl: mcpUrl })) !== "REDIRECT") throw new Error("expected a redirect to sign in");
  const back = await consentInBrowser(client.authorizationUrl!, email);
  if (back.searchParams.get("state") !== client.stateValue) throw new Error("state mismatch");
  if (back.searchParams.get("iss") !== issuer) throw new Error(`iss mismatch: ${back.searchParams.get("iss")}`);
  const code = back.searchParams.get("code");
  if (!code) throw new Error(`no code: ${back.href}`);
  if ((await auth(client, { serverUrl: mcpUrl, authorizationCode: code })) !== "AUTHORIZED")
    throw new Error("expected tokens");
  return client;
}

export async function connect(mcpUrl: string, accessToken: string): Promise<Client> {
  const client = new Client({ name: "boutique-tests", version: "1.0.0" });
  const transport = new StreamableHTTPClientTransport(new URL(mcpUrl), {
    requestInit: { headers: { authorization: `Bearer ${accessToken}` } },
  });
  await client.connect(transport);
  return client;
}

/** tools/call through the real client, without the SDK's output check, so typed errors come back as results. */
export async function call(client: Client, name: string, args: Record<string, unknown>): Promise<CallToolResult> {
  return (await client.request(
    { method: "tools/call", params: { name, arguments: args } },
    CallToolResultSchema,
  )) as CallToolResult;
}

export function errorOf(result: CallToolResult): any {
  if (!result.isError) throw new Error(`expected an error, got ${JSON.stringify(result.structuredContent)}`);
  return JSON.parse((result.content[0] as { text: string }).text).error;
}

export function structured(result: CallToolResult): any {
  if (result.isError) throw new Error(`tool error: ${JSON.stringify(result.content)}`);
  return result.structuredContent;
}
