import "server-only";
import {
  discoverOAuthServerInfo,
  exchangeAuthorization,
  extractWWWAuthenticateParams,
  refreshAuthorization,
  registerClient,
  startAuthorization,
} from "@modelcontextprotocol/sdk/client/auth.js";
import { checkResourceAllowed } from "@modelcontextprotocol/sdk/shared/auth-utils.js";
import type {
  AuthorizationServerMetadata,
  OAuthClientInformationMixed,
  OAuthTokens,
} from "@modelcontextprotocol/sdk/shared/auth.js";
import { db, type DbOrTx } from "@/lib/db";
import { env } from "@/lib/env";
import { ApiError } from "@/lib/http/errors";
import { openBoundSecret, sealBoundSecret } from "@/lib/mcp/secrets";
import { privateOriginsFor } from "@/lib/net/origin-grants";
import { pinnedFetch, type PinnedFetch } from "@/lib/net/pinned-fetch";
import { UrlNotAllowedError } from "@/lib/net/ssrf";

// Guichet as the OAuth client of an upstream MCP server (the MCP authorization
// specification), built on the MCP SDK's client auth module: discovery from the
// server's 401 and its protected-resource metadata (RFC 9728) then the
// authorization server's metadata (RFC 8414 / OpenID discovery), registration
// (Client ID Metadata Document, Dynamic Client Registration, or what an admin
// entered), authorization code with PKCE S256 and the resource indicator, and
// refresh.
//
// Every request goes through the pinned fetch under the organization's private
// origins: the admin chose the server's URL, but the authorization server's
// endpoints come from the upstream's metadata, so they reach loopback or private
// networks only where the operator granted that origin to the organization.

const DISCOVERY_TTL_MS = 5 * 60_000;
const REQUEST_TIMEOUT_MS = 10_000;

export interface UpstreamAuth {
  issuer: string;
  metadata: AuthorizationServerMetadata;
  /** The resource indicator (RFC 8707) every token is asked for: the protected resource's, else the server URL. */
  resource: string;
  /**
   * What to ask for (SEP-835): the scope of the server's 401 challenge, else the scopes its protected-resource
   * metadata lists; with offline_access, openid and email when the authorization server offers them.
   */
  scope: string | undefined;
}

export type ClientMethod = "metadata_document" | "dynamic" | "manual";

/** The server fields the OAuth client reads. */
export interface OAuthServerRow {
  id: number;
  organizationId: string;
  url: string;
  oauthClientId: string | null;
  oauthClientSecretCiphertext: string | null;
}

/** A fetch for the upstream's authorization traffic: SSRF-pinned under the organization's grants, bounded in time. */
export async function upstreamFetch(organizationId: string): Promise<PinnedFetch> {
  const fetch = pinnedFetch({ privateOrigins: await privateOriginsFor(organizationId) });
  return (url, init = {}) =>
    fetch(url, {
      ...init,
      signal: init.signal
        ? AbortSignal.any([init.signal, AbortSignal.timeout(REQUEST_TIMEOUT_MS)])
        : AbortSignal.timeout(REQUEST_TIMEOUT_MS),
    });
}

/** Where the upstream sends the member back: one fixed path of this instance. */
export function callbackUrl(origin: string): string {
  return `${origin}/oauth/connectors/callback`;
}

/** Guichet's Client ID Metadata Document: its URL is the client_id an authorization server fetches. */
export function clientMetadataDocumentUrl(origin: string): string {
  return `${origin}/oauth/connector-client.json`;
}

export function clientMetadataDocument(origin: string) {
  return {
    client_id: clientMetadataDocumentUrl(origin),
    client_name: "Guichet",
    client_uri: `${origin}/`,
    redirect_uris: [callbackUrl(origin)],
    grant_types: ["authorization_code", "refresh_token"],
    response_types: ["code"],
    token_endpoint_auth_method: "none",
  };
}

/** The origin this instance is reached at for OAuth: the configured console origin, else the request's. */
export function publicOrigin(request: Request): string {
  return env.consoleOrigin ?? new URL(request.url).origin;
}

const discovered = new Map<string, { at: number; auth: Promise<UpstreamAuth> }>();

/** Forgets what was discovered about a server (moved, deleted). */
export function forgetDiscovery(url: string): void {
  discovered.delete(url);
}

export class UpstreamAuthError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "UpstreamAuthError";
  }
}

/** What the upstream says of its authorization, cached a few minutes per server URL. */
export function discoverUpstream(url: string, fetchFn: PinnedFetch): Promise<UpstreamAuth> {
  const cached = discovered.get(url);
  if (cached && Date.now() - cached.at < DISCOVERY_TTL_MS) return cached.auth;
  const auth = discover(url, fetchFn);
  discovered.set(url, { at: Date.now(), auth });
  auth.catch(() => {
    if (discovered.get(url)?.auth === auth) discovered.delete(url);
  });
  return auth;
}

async function discover(url: string, fetchFn: PinnedFetch): Promise<UpstreamAuth> {
  // The server's own 401 may name its protected-resource metadata (RFC 9728 §5.1).
  let resourceMetadataUrl: URL | undefined;
  // And the scope to ask for (MCP 2025-11-25, SEP-835): it comes before the metadata's scopes_supported.
  let challengedScope: string | undefined;
  try {
    const probe = await fetchFn(url, {
      method: "POST",
      headers: { "content-type": "application/json", accept: "application/json, text/event-stream" },
      body: JSON.stringify({ jsonrpc: "2.0", id: 0, method: "ping" }),
    });
    if (probe.status === 401) ({ resourceMetadataUrl, scope: challengedScope } = extractWWWAuthenticateParams(probe));
    await probe.body?.cancel().catch(() => undefined);
  } catch (error) {
    if (error instanceof UrlNotAllowedError) throw error;
    throw new UpstreamAuthError("The connector could not be reached to discover its authorization server.");
  }
  // The metadata URL came from the upstream: it must stay on the server's origin.
  if (resourceMetadataUrl && resourceMetadataUrl.origin !== new URL(url).origin) resourceMetadataUrl = undefined;
  let info;
  try {
    info = await discoverOAuthServerInfo(url, { resourceMetadataUrl, fetchFn });
  } catch (error) {
    if (error instanceof UrlNotAllowedError) throw error;
    throw new UpstreamAuthError("The connector's authorization metadata could not be read.");
  }
  const metadata = info.authorizationServerMetadata;
  if (!metadata) throw new UpstreamAuthError("The connector names no authorization server metadata.");
  if (!metadata.code_challenge_methods_supported?.includes("S256"))
    throw new UpstreamAuthError("The connector's authorization server does not offer PKCE S256.");
  const declared = info.resourceMetadata?.resource;
  if (declared && !checkResourceAllowed({ requestedResource: url, configuredResource: declared }))
    throw new UpstreamAuthError("The connector's protected-resource metadata names another resource.");
  const scopes = challengedScope
    ? challengedScope.split(" ").filter(Boolean)
    : [...(info.resourceMetadata?.scopes_supported ?? [])];
  // offline_access for a refresh token; openid and email for the account's name in « Mes connexions ».
  for (const extra of ["offline_access", "openid", "email"])
    if (metadata.scopes_supported?.includes(extra) && !scopes.includes(extra)) scopes.push(extra);
  return {
    issuer: metadata.issuer,
    metadata,
    resource: declared ?? url,
    scope: scopes.length ? scopes.join(" ") : undefined,
  };
}

export interface ClientRegistration {
  client: OAuthClientInformationMixed;
  method: ClientMethod;
}

/**
 * Guichet's client at the server's authorization server: the admin's client id and
 * secret when given; else the registration kept for this issuer and origin; else a
 * new one, by metadata document when this instance is reached over https and the
 * authorization server accepts it, by Dynamic Client Registration otherwise.
 */
export async function clientRegistration(
  server: OAuthServerRow,
  auth: UpstreamAuth,
  /** This instance's origin, to register with; null to use only what is kept (a refresh never registers). */
  origin: string | null,
  fetchFn: PinnedFetch,
  tx: DbOrTx = db,
): Promise<ClientRegistration> {
  const serverOrigin = new URL(server.url).origin;
  const binding = { serverId: server.id };
  if (server.oauthClientId) {
    const secret = server.oauthClientSecretCiphertext
      ? openBoundSecret(server.oauthClientSecretCiphertext, serverOrigin, binding)
      : undefined;
    return { client: { client_id: server.oauthClientId, client_secret: secret }, method: "manual" };
  }
  const kept = await tx.mcpOAuthRegistration.findUnique({ where: { serverId: server.id } });
  if (kept && kept.origin === serverOrigin && kept.issuer === auth.issuer) {
    const secret = kept.clientSecretCiphertext
      ? openBoundSecret(kept.clientSecretCiphertext, serverOrigin, binding)
      : undefined;
    // A document's client id is its URL on this instance: an instance moved to another address registers again.
    if (origin === null || kept.method !== "metadata_document" || kept.clientId === clientMetadataDocumentUrl(origin))
      return { client: { client_id: kept.clientId, client_secret: secret }, method: kept.method as ClientMethod };
  }
  if (origin === null)
    throw new UpstreamAuthError("Guichet has no registration at this connector's authorization server.");
  let registration: ClientRegistration;
  if (origin.startsWith("https://") && auth.metadata.client_id_metadata_document_supported) {
    registration = { client: { client_id: clientMetadataDocumentUrl(origin) }, method: "metadata_document" };
  } else if (auth.metadata.registration_endpoint) {
    let full;
    try {
      full = await registerClient(auth.issuer, {
        metadata: auth.metadata,
        clientMetadata: {
          client_name: "Guichet",
          redirect_uris: [callbackUrl(origin)],
          grant_types: ["authorization_code", "refresh_token"],
          response_types: ["code"],
          token_endpoint_auth_method: "none",
        },
        scope: auth.scope,
        fetchFn,
      });
    } catch (error) {
      if (error instanceof UrlNotAllowedError) throw error;
      throw new UpstreamAuthError("The connector's authorization server refused Guichet's registration.");
    }
    registration = { client: { client_id: full.client_id, client_secret: full.client_secret }, method: "dynamic" };
  } else {
    throw new UpstreamAuthError(
      "The connector's authorization server offers no way for Guichet to register: an admin must enter a client id on the connector.",
    );
  }
  const row = {
    organizationId: server.organizationId,
    origin: serverOrigin,
    issuer: auth.issuer,
    clientId: registration.client.client_id,
    clientSecretCiphertext: registration.client.client_secret
      ? sealBoundSecret(registration.client.client_secret, serverOrigin, binding)
      : null,
    method: registration.method,
  };
  await tx.mcpOAuthRegistration.upsert({
    where: { serverId: server.id },
    create: { serverId: server.id, ...row },
    update: row,
  });
  return registration;
}

/** The authorization URL (PKCE S256, state, resource) and the verifier to keep for the callback. */
export async function beginAuthorization(
  auth: UpstreamAuth,
  registration: ClientRegistration,
  redirectUri: string,
  state: string,
): Promise<{ authorizationUrl: URL; codeVerifier: string }> {
  return startAuthorization(auth.issuer, {
    metadata: auth.metadata,
    clientInformation: registration.client,
    redirectUrl: redirectUri,
    scope: auth.scope,
    state,
    resource: new URL(auth.resource),
  });
}

export function exchangeCode(
  auth: UpstreamAuth,
  registration: ClientRegistration,
  input: { code: string; codeVerifier: string; redirectUri: string },
  fetchFn: PinnedFetch,
): Promise<OAuthTokens> {
  return exchangeAuthorization(auth.issuer, {
    metadata: auth.metadata,
    clientInformation: registration.client,
    authorizationCode: input.code,
    codeVerifier: input.codeVerifier,
    redirectUri: input.redirectUri,
    resource: new URL(auth.resource),
    fetchFn,
  });
}

export function refreshTokens(
  auth: UpstreamAuth,
  registration: ClientRegistration,
  refreshToken: string,
  fetchFn: PinnedFetch,
): Promise<OAuthTokens> {
  return refreshAuthorization(auth.issuer, {
    metadata: auth.metadata,
    clientInformation: registration.client,
    refreshToken,
    resource: new URL(auth.resource),
    fetchFn,
  });
}

/** Whether the authorization server says it sends `iss` back with the code (RFC 9207). */
export function sendsIssuer(auth: UpstreamAuth): boolean {
  return (
    (auth.metadata as { authorization_response_iss_parameter_supported?: unknown })
      .authorization_response_iss_parameter_supported === true
  );
}

/**
 * The callback's issuer check (RFC 9207), on the answer's query: true when it may
 * not come from the authorization server the sign-in was started at (`startedAt`).
 * The server discovered now must still be that one; an `iss` must name it; one
 * that says it sends `iss` must send it with a code (a refusal is stored nowhere,
 * so it needs none).
 */
export function issuerMismatch(auth: UpstreamAuth, startedAt: string, answer: URLSearchParams): boolean {
  const iss = answer.get("iss");
  return (
    auth.issuer !== startedAt ||
    (iss !== null && iss !== startedAt) ||
    (iss === null && !answer.get("error") && sendsIssuer(auth))
  );
}

/**
 * The account a token response names, for people to recognise the connection: the
 * ID token's e-mail, preferred user name or subject (read, not verified: a label only).
 */
export function accountLabel(tokens: OAuthTokens): string | null {
  const idToken = tokens.id_token;
  if (typeof idToken !== "string") return null;
  const payload = idToken.split(".")[1];
  if (!payload) return null;
  try {
    const claims = JSON.parse(Buffer.from(payload, "base64url").toString("utf8")) as Record<string, unknown>;
    const label = [claims.email, claims.preferred_username, claims.sub].find(
      (value): value is string => typeof value === "string" && value.length > 0,
    );
    return label ? label.slice(0, 200) : null;
  } catch {
    return null;
  }
}

/** The upstream refused for good (the member must sign in again) rather than failed for now. */
export function isInvalidGrant(error: unknown): boolean {
  return (
    typeof error === "object" &&
    error !== null &&
    ((error as { errorCode?: unknown }).errorCode === "invalid_grant" ||
      (error as { name?: unknown }).name === "InvalidGrantError")
  );
}

/** An upstream authorization failure as the API's typed refusal. */
export function asApiError(error: unknown): ApiError {
  if (error instanceof ApiError) return error;
  if (error instanceof UrlNotAllowedError)
    return new ApiError("url_not_allowed", `The connector's authorization address is refused: ${error.message}`);
  if (error instanceof UpstreamAuthError) return new ApiError("connection_unavailable", error.message);
  return new ApiError("connection_unavailable", "The connector's authorization server could not be used.");
}
