import "server-only";
import { createHash, timingSafeEqual } from "node:crypto";
import {
  InvalidGrantError,
  InvalidRequestError,
  InvalidScopeError,
  InvalidTargetError,
  UnsupportedGrantTypeError,
} from "@modelcontextprotocol/sdk/server/auth/errors.js";
import type { OAuthTokens } from "@modelcontextprotocol/sdk/shared/auth.js";
import { db, type DbOrTx } from "@/lib/db";
import { ACCESS_TOKEN_TTL_S, isSecretOf, newSecret, REFRESH_TOKEN_TTL_S, secretHash } from "./config";
import { revokeGrant, type RevokedReason } from "./grants";

// The token endpoint: a one-time code (with its PKCE verifier) or a refresh
// token becomes a new access token and a new refresh token. Codes and refresh
// tokens are used once: a second use means someone else holds a copy, so the
// whole grant is revoked, the tokens the first use gave included.

const tokenSelect = {
  hash: true,
  kind: true,
  expiresAt: true,
  usedAt: true,
  codeChallenge: true,
  redirectUri: true,
  grant: {
    select: {
      id: true,
      organizationId: true,
      scope: true,
      resource: true,
      revokedAt: true,
      memberRole: true,
      client: { select: { clientId: true, name: true } },
      member: { select: { id: true, email: true, role: true, deactivatedAt: true } },
    },
  },
} as const;

async function issue(tx: DbOrTx, grant: { id: string; scope: string }): Promise<OAuthTokens> {
  const access = newSecret("access");
  const refresh = newSecret("refresh");
  const now = Date.now();
  await tx.oAuthToken.createMany({
    data: [
      {
        hash: secretHash(access),
        grantId: grant.id,
        kind: "access",
        expiresAt: new Date(now + ACCESS_TOKEN_TTL_S * 1000),
      },
      {
        hash: secretHash(refresh),
        grantId: grant.id,
        kind: "refresh",
        expiresAt: new Date(now + REFRESH_TOKEN_TTL_S * 1000),
      },
    ],
  });
  return {
    access_token: access,
    token_type: "Bearer",
    expires_in: ACCESS_TOKEN_TTL_S,
    refresh_token: refresh,
    scope: grant.scope,
  };
}

function pkceMatches(verifier: string, challenge: string | null): boolean {
  if (!challenge || !/^[A-Za-z0-9._~-]{43,128}$/.test(verifier)) return false;
  const computed = Buffer.from(createHash("sha256").update(verifier).digest("base64url"));
  const expected = Buffer.from(challenge);
  return computed.length === expected.length && timingSafeEqual(computed, expected);
}

/** Why a grant's member can no longer be acted for, or null while they can. */
export function memberGone(grant: {
  memberRole: string;
  member: { role: string; deactivatedAt: Date | null };
}): RevokedReason | null {
  if (grant.member.deactivatedAt) return "deactivated";
  if (grant.member.role !== grant.memberRole) return "role_changed";
  return null;
}

type Form = Record<string, string | undefined>;

/** One-time use: the first caller marks the secret used; a second caller (a copy) revokes the grant. */
async function spendOnce(
  form: Form,
  secret: string | undefined,
  kind: "code" | "refresh",
): Promise<NonNullable<Awaited<ReturnType<typeof findToken>>>> {
  if (!secret || !isSecretOf(kind, secret)) throw new InvalidGrantError(`Unknown or expired ${kind}.`);
  const token = await findToken(secret, kind);
  if (!token) throw new InvalidGrantError(`Unknown or expired ${kind}.`);
  const { grant } = token;
  if (grant.client.clientId !== form.client_id)
    throw new InvalidGrantError(`This ${kind} was issued to another client.`);
  const used = await db.oAuthToken.updateMany({
    where: { hash: token.hash, usedAt: null },
    data: { usedAt: new Date() },
  });
  if (used.count === 0) {
    await revokeGrant(grant, kind === "code" ? "code_reuse" : "refresh_reuse", null);
    throw new InvalidGrantError(`This ${kind} was already used: the grant is revoked.`);
  }
  if (grant.revokedAt || token.expiresAt <= new Date()) throw new InvalidGrantError(`Unknown or expired ${kind}.`);
  const gone = memberGone(grant);
  if (gone) {
    await revokeGrant(grant, gone, null);
    throw new InvalidGrantError("The member who consented can no longer be acted for.");
  }
  if (form.resource !== undefined && form.resource !== grant.resource)
    throw new InvalidTargetError("resource must be the MCP URL the grant was given for.");
  return token;
}

function findToken(secret: string, kind: "code" | "refresh") {
  return db.oAuthToken.findFirst({ where: { hash: secretHash(secret), kind }, select: tokenSelect });
}

/** POST /oauth/token with a parsed form. */
export async function exchange(form: Form): Promise<OAuthTokens> {
  if (!form.client_id) throw new InvalidRequestError("client_id is required (public clients only).");
  if (form.grant_type === "authorization_code") {
    if (!form.code_verifier) throw new InvalidRequestError("code_verifier is required (PKCE).");
    const token = await spendOnce(form, form.code, "code");
    if (!pkceMatches(form.code_verifier, token.codeChallenge))
      throw new InvalidGrantError("code_verifier does not match the code_challenge.");
    if (form.redirect_uri !== token.redirectUri)
      throw new InvalidGrantError("redirect_uri must be the one the code was issued for.");
    return issue(db, token.grant);
  }
  if (form.grant_type === "refresh_token") {
    const token = await spendOnce(form, form.refresh_token, "refresh");
    const asked = (form.scope ?? "").split(" ").filter(Boolean);
    const allowed = token.grant.scope === "mcp:read_write" ? ["mcp:read", "mcp:read_write"] : ["mcp:read"];
    if (asked.some((scope) => !allowed.includes(scope)))
      throw new InvalidScopeError("A refresh cannot widen the grant's scope.");
    return issue(db, token.grant);
  }
  throw new UnsupportedGrantTypeError("grant_type must be authorization_code or refresh_token.");
}

/** POST /oauth/revoke (RFC 7009): the token's grant ends, whatever kind of token names it; unknown tokens are not an error. */
export async function revokeToken(form: Form): Promise<void> {
  const token = form.token;
  if (!token || !(isSecretOf("access", token) || isSecretOf("refresh", token))) return;
  const row = await db.oAuthToken.findUnique({ where: { hash: secretHash(token) }, select: tokenSelect });
  if (!row || row.grant.client.clientId !== form.client_id || row.grant.revokedAt) return;
  await revokeGrant(row.grant, "client", null);
}
