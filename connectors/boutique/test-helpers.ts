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
import { DEMO_PASSWORD } from "./accounts";
import { Browser, consentAt } from "./sign-in";

export { Browser, formAction } from "./sign-in";

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

/**
 * Plays the person at the authorization server: from the authorization URL,
 * signs in with Boutique's login form and presses « Autoriser ». Returns the
 * URL the browser is sent back to (code, state, iss, or an error).
 */
export function consentInBrowser(
  authorizationUrl: URL,
  email: string,
  password = DEMO_PASSWORD,
  browser = new Browser(),
): Promise<URL> {
  return consentAt(authorizationUrl, email, REDIRECT_URL, password, browser);
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
