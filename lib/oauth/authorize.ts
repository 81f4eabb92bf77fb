import "server-only";
import {
  AccessDeniedError,
  InvalidRequestError,
  InvalidScopeError,
  InvalidTargetError,
  OAuthError,
  UnsupportedResponseTypeError,
} from "@modelcontextprotocol/sdk/server/auth/errors.js";
import { recordAudit } from "@/lib/audit/record";
import { scopesForRole, type Role } from "@/lib/auth/scopes";
import { db } from "@/lib/db";
import { newId } from "@/lib/ids";
import { redirectUriMatches, resolveClient, type OAuthClientRow } from "./clients";
import { agentOfResource, CODE_TTL_S, newSecret, OAUTH_SCOPES, secretHash, type OAuthScope } from "./config";

// The authorization endpoint's rules, checked the same way when the request
// arrives, when the consent screen shows it and when the member decides: the
// browser carries the parameters between the three, so each step re-checks
// them rather than trusting an earlier one.

export interface AuthorizationRequest {
  client: OAuthClientRow;
  redirectUri: string;
  state: string | null;
  codeChallenge: string;
  scope: OAuthScope;
  resource: string;
  agentId: string;
}

/** Refusals the client must not receive: the redirect URI is unknown, so the browser shows the error instead. */
export class AuthorizationPageError extends Error {
  constructor(readonly oauth: OAuthError) {
    super(oauth.message);
    this.name = "AuthorizationPageError";
  }
}

/** Refusals sent back to the client at its (verified) redirect URI. */
export class AuthorizationRedirectError extends Error {
  constructor(
    readonly oauth: OAuthError,
    readonly redirectUri: string,
    readonly state: string | null,
  ) {
    super(oauth.message);
    this.name = "AuthorizationRedirectError";
  }
}

export const AUTHORIZATION_PARAMS = [
  "response_type",
  "client_id",
  "redirect_uri",
  "state",
  "scope",
  "code_challenge",
  "code_challenge_method",
  "resource",
] as const;

type Params = Partial<Record<(typeof AUTHORIZATION_PARAMS)[number], string>>;

export function paramsOf(source: URLSearchParams | FormData): Params {
  const params: Params = {};
  for (const name of AUTHORIZATION_PARAMS) {
    const value = source.get(name);
    if (typeof value === "string") params[name] = value.slice(0, 2000);
  }
  return params;
}

/** The scope asked for: the widest of those named (read_write includes read); none named is read. */
function scopeOf(value: string | undefined): OAuthScope | null {
  const asked = (value ?? "").split(" ").filter(Boolean);
  if (asked.some((scope) => !(OAUTH_SCOPES as readonly string[]).includes(scope))) return null;
  return asked.includes("mcp:read_write") ? "mcp:read_write" : "mcp:read";
}

/** Checks an authorization request; throws a page error or a redirect error. */
export async function checkAuthorizationRequest(params: Params, issuer: string): Promise<AuthorizationRequest> {
  if (!params.client_id) throw new AuthorizationPageError(new InvalidRequestError("client_id is required."));
  let client: OAuthClientRow;
  try {
    client = await resolveClient(params.client_id);
  } catch (error) {
    if (error instanceof OAuthError) throw new AuthorizationPageError(error);
    throw error;
  }
  const redirectUri = params.redirect_uri ?? (client.redirectUris.length === 1 ? client.redirectUris[0] : undefined);
  if (!redirectUri || !redirectUriMatches(client.redirectUris, redirectUri))
    throw new AuthorizationPageError(
      new InvalidRequestError("redirect_uri is missing or is not exactly one of the client's redirect URIs."),
    );
  const state = params.state ?? null;
  const fail = (error: OAuthError) => new AuthorizationRedirectError(error, redirectUri, state);
  if (params.response_type !== "code") throw fail(new UnsupportedResponseTypeError("response_type must be code."));
  if (!params.code_challenge || !/^[A-Za-z0-9_-]{43}$/.test(params.code_challenge))
    throw fail(new InvalidRequestError("code_challenge is required (PKCE, S256)."));
  if (params.code_challenge_method !== "S256")
    throw fail(new InvalidRequestError("code_challenge_method must be S256; plain is not accepted."));
  const scope = scopeOf(params.scope);
  if (!scope) throw fail(new InvalidScopeError(`scope must be ${OAUTH_SCOPES.join(" or ")}.`));
  const agentId = params.resource ? agentOfResource(issuer, params.resource) : null;
  if (!params.resource || !agentId)
    throw fail(new InvalidTargetError("resource is required: the MCP URL of one agent of this Guichet (RFC 8707)."));
  return {
    client,
    redirectUri,
    state,
    codeChallenge: params.code_challenge,
    scope,
    resource: params.resource,
    agentId,
  };
}

/** Whether a member of this role may let a client act for them with this scope. */
export function roleMayGrant(role: Role, scope: OAuthScope): boolean {
  return scope === "mcp:read" || scopesForRole(role).includes("runs:write");
}

/** Where the browser goes back to the client: its redirect URI with the answer, `state` and `iss` (RFC 9207). */
export function clientRedirect(
  redirectUri: string,
  issuer: string,
  state: string | null,
  answer: Record<string, string>,
): string {
  const url = new URL(redirectUri);
  for (const [name, value] of Object.entries(answer)) url.searchParams.set(name, value);
  if (state !== null) url.searchParams.set("state", state);
  url.searchParams.set("iss", issuer);
  return url.toString();
}

export function errorRedirect(error: AuthorizationRedirectError, issuer: string): string {
  const { error: code, error_description } = error.oauth.toResponseObject();
  return clientRedirect(error.redirectUri, issuer, error.state, {
    error: code,
    ...(error_description ? { error_description } : {}),
  });
}

export interface Consenter {
  memberId: string;
  organizationId: string;
  email: string;
  role: Role;
}

/** The member's answer: « Autoriser » makes a grant and a one-time code; « Refuser » grants nothing. */
export async function decide(
  request: AuthorizationRequest,
  member: Consenter,
  allow: boolean,
  issuer: string,
): Promise<string> {
  const fail = (error: OAuthError) =>
    errorRedirect(new AuthorizationRedirectError(error, request.redirectUri, request.state), issuer);
  if (!allow) return fail(new AccessDeniedError("The member refused."));
  if (!roleMayGrant(member.role, request.scope))
    return fail(new InvalidScopeError("The member's role does not allow mcp:read_write."));
  const agent = await db.agent.findFirst({
    where: { id: request.agentId, organizationId: member.organizationId },
    select: { id: true },
  });
  if (!agent) return fail(new InvalidTargetError("No agent of the member's organization has this MCP URL."));
  const code = newSecret("code");
  const grantId = newId("ogr");
  await db.$transaction(async (tx) => {
    await tx.oAuthGrant.create({
      data: {
        id: grantId,
        organizationId: member.organizationId,
        memberId: member.memberId,
        clientId: request.client.id,
        agentId: agent.id,
        resource: request.resource,
        scope: request.scope,
        memberRole: member.role,
      },
    });
    await tx.oAuthToken.create({
      data: {
        hash: secretHash(code),
        grantId,
        kind: "code",
        expiresAt: new Date(Date.now() + CODE_TTL_S * 1000),
        codeChallenge: request.codeChallenge,
        redirectUri: request.redirectUri,
      },
    });
    await recordAudit(
      {
        organizationId: member.organizationId,
        actor: { type: "member", id: member.memberId, label: member.email },
        action: "oauth_grant.created",
        target: { type: "oauth_grant", id: grantId },
        details: { client: request.client.name.slice(0, 100), agent: agent.id, scope: request.scope },
      },
      tx,
    );
  });
  return clientRedirect(request.redirectUri, issuer, request.state, { code });
}
