import "server-only";
import { recordAudit, type AuditActor } from "@/lib/audit/record";
import type { Principal } from "@/lib/auth/principal";
import { scopesForRole, Role } from "@/lib/auth/scopes";
import { db, type DbOrTx } from "@/lib/db";
import { WatchedCache } from "@/lib/db/changes";
import { abortSessionCalls } from "@/lib/mcp-server/session";
import { isSecretOf, secretHash, type OAuthScope } from "./config";

// A grant is a member's consent for one client at one agent. Ending it ends
// every token of it at the next request (each request reads the grant), and
// its MCP sessions with it. Access tokens are checked here for the door.

export type RevokedReason =
  | "member"
  | "admin"
  | "client"
  | "refresh_reuse"
  | "code_reuse"
  | "signed_out"
  | "role_changed"
  | "deactivated"
  | "client_deleted";

/** Ends a grant (once) and the MCP sessions opened with it, with the audit event that says why. */
export async function revokeGrant(
  grant: { id: string; organizationId: string },
  reason: RevokedReason,
  actor: AuditActor | null,
  tx?: DbOrTx,
): Promise<boolean> {
  const run = async (tx: DbOrTx) => {
    const ended = await tx.oAuthGrant.updateMany({
      where: { id: grant.id, revokedAt: null },
      data: { revokedAt: new Date(), revokedReason: reason },
    });
    if (ended.count === 0) return { ended: false, runIds: [] as string[] };
    const live = { oauthGrantId: grant.id, source: "mcp", status: { in: ["active", "suspended"] } };
    const runs = await tx.run.findMany({ where: live, select: { id: true } });
    if (runs.length) await tx.run.updateMany({ where: live, data: { status: "cancelled" } });
    await recordAudit(
      {
        organizationId: grant.organizationId,
        actor: actor ?? { type: "system" },
        action: reason === "refresh_reuse" ? "oauth_grant.refresh_reused" : "oauth_grant.revoked",
        target: { type: "oauth_grant", id: grant.id },
        details: { reason },
      },
      tx,
    );
    return { ended: true, runIds: runs.map((r) => r.id) };
  };
  const result = tx ? await run(tx) : await db.$transaction(run);
  abortSessionCalls(result.runIds);
  return result.ended;
}

/** « Se déconnecter partout »: the member's applications are signed out too. */
export async function revokeGrantsOfMember(memberId: string, reason: RevokedReason): Promise<void> {
  const grants = await db.oAuthGrant.findMany({
    where: { memberId, revokedAt: null },
    select: { id: true, organizationId: true, memberId: true },
  });
  for (const grant of grants) await revokeGrant(grant, reason, { type: "member", id: grant.memberId });
}

/** What an OAuth access token lets its holder do at the door. */
export interface OAuthAccess {
  principal: Principal & { kind: "member" };
  grantId: string;
  clientName: string;
  scope: OAuthScope;
  resource: string;
}

export type AccessRefusal = "invalid_token" | "wrong_resource";

const LAST_USED_GRANULARITY_MS = 60_000;

interface KnownToken {
  kind: string;
  expiresAt: Date;
  grantId: string;
  organizationId: string;
  scope: string;
  resource: string;
  revokedAt: Date | null;
  memberRole: string;
  lastUsedAt: Date | null;
  clientName: string;
  memberId: string;
  email: string;
  role: string;
  deactivatedAt: Date | null;
  memberOrganizationId: string;
}

// Access tokens by hash, kept by each instance while no grant, client or member
// changes anywhere (the "oauth" topic, lib/db/changes.ts): a revocation, a role
// change or a removal is seen by the next request of every instance, as for API
// keys. Unknown tokens are never kept; expiry is checked against the clock.
const knownTokens = new WatchedCache<string, KnownToken>(["oauth"]);

async function loadToken(hash: string): Promise<KnownToken | null> {
  // SQL rather than findUnique: Prisma 6 compiles every ORM query anew, and this runs on every request.
  const [row] = await db.$queryRaw<KnownToken[]>`
    SELECT t."kind", t."expiresAt", g."id" AS "grantId", g."organizationId", g."scope", g."resource",
           g."revokedAt", g."memberRole", g."lastUsedAt", c."name" AS "clientName", m."id" AS "memberId",
           m."email", m."role", m."deactivatedAt", m."organizationId" AS "memberOrganizationId"
    FROM "OAuthToken" t
    JOIN "OAuthGrant" g ON g."id" = t."grantId"
    JOIN "OAuthClient" c ON c."id" = g."clientId"
    JOIN "Member" m ON m."id" = g."memberId"
    WHERE t."hash" = ${hash}`;
  return row ?? null;
}

/**
 * The access a bearer token gives at one resource: a revoked grant, an expired
 * token, a removed, deactivated or re-roled member are refused at once, on
 * every instance.
 */
export async function verifyAccessToken(token: string, resource: string): Promise<OAuthAccess | AccessRefusal> {
  if (!isSecretOf("access", token)) return "invalid_token";
  const hash = secretHash(token);
  const row = await knownTokens.get(hash, () => loadToken(hash));
  const now = new Date();
  if (!row || row.kind !== "access" || row.expiresAt <= now || row.revokedAt) return "invalid_token";
  const grant = { id: row.grantId, organizationId: row.organizationId };
  const role = Role.safeParse(row.role);
  if (row.deactivatedAt || row.role !== row.memberRole || !role.success) {
    await revokeGrant(grant, row.deactivatedAt ? "deactivated" : "role_changed", null);
    return "invalid_token";
  }
  if (row.resource !== resource || row.memberOrganizationId !== row.organizationId) return "wrong_resource";
  if (!row.lastUsedAt || now.getTime() - row.lastUsedAt.getTime() >= LAST_USED_GRANULARITY_MS) {
    // At most one write a minute per grant and instance; lastUsedAt is outside what the triggers watch.
    row.lastUsedAt = now;
    await db.oAuthGrant.updateMany({ where: { id: row.grantId }, data: { lastUsedAt: now } });
  }
  return {
    principal: {
      kind: "member",
      organizationId: row.organizationId,
      memberId: row.memberId,
      email: row.email,
      role: role.data,
      scopes: scopesForRole(role.data),
    },
    grantId: row.grantId,
    clientName: row.clientName,
    scope: row.scope === "mcp:read_write" ? "mcp:read_write" : "mcp:read",
    resource: row.resource,
  };
}
