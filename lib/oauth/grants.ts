import "server-only";
import { recordAudit, type AuditActor } from "@/lib/audit/record";
import type { Principal } from "@/lib/auth/principal";
import { scopesForRole, Role } from "@/lib/auth/scopes";
import { db, type DbOrTx } from "@/lib/db";
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

/**
 * The access a bearer token gives at one resource, read from the database on
 * every request: a revoked grant, an expired token, a removed, deactivated or
 * re-roled member are refused at once, on every instance.
 */
export async function verifyAccessToken(token: string, resource: string): Promise<OAuthAccess | AccessRefusal> {
  if (!isSecretOf("access", token)) return "invalid_token";
  const row = await db.oAuthToken.findUnique({
    where: { hash: secretHash(token) },
    select: {
      kind: true,
      expiresAt: true,
      grant: {
        select: {
          id: true,
          organizationId: true,
          scope: true,
          resource: true,
          revokedAt: true,
          memberRole: true,
          lastUsedAt: true,
          client: { select: { name: true } },
          member: { select: { id: true, email: true, role: true, deactivatedAt: true, organizationId: true } },
        },
      },
    },
  });
  const now = new Date();
  if (!row || row.kind !== "access" || row.expiresAt <= now || row.grant.revokedAt) return "invalid_token";
  const { grant } = row;
  const role = Role.safeParse(grant.member.role);
  if (grant.member.deactivatedAt || grant.member.role !== grant.memberRole || !role.success) {
    await revokeGrant(grant, grant.member.deactivatedAt ? "deactivated" : "role_changed", null);
    return "invalid_token";
  }
  if (grant.resource !== resource || grant.member.organizationId !== grant.organizationId) return "wrong_resource";
  if (!grant.lastUsedAt || now.getTime() - grant.lastUsedAt.getTime() >= LAST_USED_GRANULARITY_MS)
    await db.oAuthGrant.updateMany({ where: { id: grant.id }, data: { lastUsedAt: now } });
  return {
    principal: {
      kind: "member",
      organizationId: grant.organizationId,
      memberId: grant.member.id,
      email: grant.member.email,
      role: role.data,
      scopes: scopesForRole(role.data),
    },
    grantId: grant.id,
    clientName: grant.client.name,
    scope: grant.scope === "mcp:read_write" ? "mcp:read_write" : "mcp:read",
    resource: grant.resource,
  };
}
