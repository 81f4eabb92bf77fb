import { createHash, randomBytes } from "node:crypto";
import { env } from "@/lib/env";

// The fixed facts of Guichet's authorization server: its issuer and endpoints,
// the two scopes an MCP client may ask for, how long each secret lives, and
// how a secret is stored (its SHA-256, never the value).

/** What a member may let a client do at one agent's MCP door. */
export const OAUTH_SCOPES = ["mcp:read", "mcp:read_write"] as const;
export type OAuthScope = (typeof OAUTH_SCOPES)[number];

/** Access tokens are short: a revoked grant or a removed member ends within a request anyway, this bounds a leaked token. */
export const ACCESS_TOKEN_TTL_S = 15 * 60;
export const REFRESH_TOKEN_TTL_S = 30 * 24 * 3600;
export const CODE_TTL_S = 60;

/** Prefixes say what a secret is at a glance (and in secret scanners); the rest is 256 random bits. */
const PREFIXES = { code: "gmc_", access: "gma_", refresh: "gmr_" } as const;
export type TokenKind = keyof typeof PREFIXES;

export function newSecret(kind: TokenKind): string {
  return `${PREFIXES[kind]}${randomBytes(32).toString("base64url")}`;
}

export function isSecretOf(kind: TokenKind, value: string): boolean {
  return value.startsWith(PREFIXES[kind]) && value.length <= 100;
}

export function secretHash(value: string): string {
  return createHash("sha256").update(value).digest("hex");
}

/** The issuer (RFC 8414): the console's configured origin, else the origin this request reached. */
export function issuerOf(request: Request): string {
  return env.consoleOrigin ?? new URL(request.url).origin;
}

/** The resource (RFC 8707) of one agent's MCP door: every token is bound to exactly one. */
export function agentResource(issuer: string, agentId: string): string {
  return `${issuer}/mcp/agents/${agentId}`;
}

/** The agent a resource URL names on this issuer, or null when it names anything else. */
export function agentOfResource(issuer: string, resource: string): string | null {
  const prefix = `${issuer}/mcp/agents/`;
  if (!resource.startsWith(prefix)) return null;
  const agentId = resource.slice(prefix.length);
  return /^agt_[0-9a-z]{26}$/.test(agentId) ? agentId : null;
}

export function oauthEndpoints(issuer: string) {
  return {
    issuer,
    authorization_endpoint: `${issuer}/oauth/authorize`,
    token_endpoint: `${issuer}/oauth/token`,
    registration_endpoint: `${issuer}/oauth/register`,
    revocation_endpoint: `${issuer}/oauth/revoke`,
  };
}

/** RFC 8414 authorization server metadata (also served at the OpenID discovery path). */
export function authorizationServerMetadata(issuer: string) {
  return {
    ...oauthEndpoints(issuer),
    response_types_supported: ["code"],
    response_modes_supported: ["query"],
    grant_types_supported: ["authorization_code", "refresh_token"],
    code_challenge_methods_supported: ["S256"],
    token_endpoint_auth_methods_supported: ["none"],
    revocation_endpoint_auth_methods_supported: ["none"],
    scopes_supported: [...OAUTH_SCOPES],
    authorization_response_iss_parameter_supported: true,
    client_id_metadata_document_supported: true,
    service_documentation: `${issuer}/`,
  };
}

/** RFC 9728 protected resource metadata of one agent's MCP door. */
export function protectedResourceMetadata(issuer: string, agentId: string) {
  return {
    resource: agentResource(issuer, agentId),
    authorization_servers: [issuer],
    scopes_supported: [...OAUTH_SCOPES],
    bearer_methods_supported: ["header"],
    resource_name: "Guichet",
  };
}

export function resourceMetadataUrl(issuer: string, agentId: string): string {
  return `${issuer}/.well-known/oauth-protected-resource/mcp/agents/${agentId}`;
}
