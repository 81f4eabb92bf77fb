import "server-only";
import { recordAudit, type AuditActor } from "@/lib/audit/record";
import { db, inTransaction, type DbOrTx } from "@/lib/db";
import { env } from "@/lib/env";
import { ApiError, notFound } from "@/lib/http/errors";
import { newId } from "@/lib/ids";
import { log } from "@/lib/log";
import { dropMcpSessions } from "@/lib/mcp/session-pool";
import { sealBoundSecret } from "@/lib/mcp/secrets";
import { noteMemberConnection } from "@/lib/observability/metrics";
import { isoOffsetOrNull } from "@/lib/time";
import { connectPath, type ConnectionObject } from "./schemas";

// Each member's own connection to a connector that acts as each member: a
// token they give (`per_user_token`) or the tokens of their OAuth sign-in at the
// connector (`oauth`). Tokens are sealed for the server's origin, the server and
// the member (lib/mcp/secrets.ts); no query here ever selects one to serve it.

const PER_MEMBER = ["per_user_token", "oauth"];

/** The console URL where a member connects a server: absolute when the console's origin is configured. */
export function connectUrl(serverId: number): string {
  return `${env.consoleOrigin ?? ""}${connectPath(serverId)}`;
}

const connectionTarget = (serverId: number) => ({ type: "connector", id: String(serverId) });

/** Audit, telemetry and a log line for a connection event: who, which server, never a token. */
export async function noteEvent(
  input: {
    organizationId: string;
    serverId: number;
    memberId: string | null;
    actor: AuditActor;
    action: "mcp_connection.connected" | "mcp_connection.refresh_failed" | "mcp_connection.disconnected";
    details?: Record<string, string | number | boolean | null>;
  },
  tx: DbOrTx,
): Promise<void> {
  await recordAudit(
    {
      organizationId: input.organizationId,
      actor: input.actor,
      action: input.action,
      target: connectionTarget(input.serverId),
      details: { member: input.memberId, ...input.details },
    },
    tx,
  );
  noteMemberConnection(input.action.slice("mcp_connection.".length) as "connected" | "refresh_failed" | "disconnected");
  log("info", input.action, { organization: input.organizationId, server: input.serverId, member: input.memberId });
}

export interface ServerForMember {
  id: number;
  name: string;
  url: string;
  auth: string;
  active: boolean;
  organizationId: string;
  oauthClientId: string | null;
  oauthClientSecretCiphertext: string | null;
}

export const serverForMemberSelect = {
  id: true,
  name: true,
  url: true,
  auth: true,
  active: true,
  organizationId: true,
  oauthClientId: true,
  oauthClientSecretCiphertext: true,
} as const;

/** A per-member server of the member's organization (404 for another organization's or an unknown id). */
export async function findPerMemberServer(
  organizationId: string,
  id: number,
  tx: DbOrTx = db,
): Promise<ServerForMember> {
  const server = await tx.mcpServer.findFirst({ where: { id, organizationId }, select: serverForMemberSelect });
  if (!server) throw notFound("MCP server");
  return server;
}

export function requireAuth(server: ServerForMember, auth: "per_user_token" | "oauth"): void {
  if (server.auth === auth) return;
  const message =
    auth === "oauth"
      ? `This connector does not sign members in with OAuth (its auth is ${server.auth}).`
      : `This connector does not take a token per member (its auth is ${server.auth}).`;
  throw new ApiError("connection_auth_mismatch", message);
}

interface ConnectionRow {
  serverId: number;
  origin: string;
  state: string;
  account: string | null;
  expiresAt: Date | null;
  lastUsedAt: Date | null;
  accessTokenCiphertext: string | null;
}

function serialize(
  server: Pick<ServerForMember, "id" | "name" | "auth" | "url">,
  row: ConnectionRow | undefined,
): ConnectionObject {
  // Tokens sealed for another origin are no connection: the server moved since (its tokens are dropped then anyway).
  const live = row && row.origin === new URL(server.url).origin ? row : undefined;
  const state = !live
    ? "not_connected"
    : live.state === "connected" && live.accessTokenCiphertext
      ? "connected"
      : "needs_reconnect";
  return {
    server: { id: server.id, name: server.name, auth: server.auth as "per_user_token" | "oauth" },
    state,
    account: live?.account ?? null,
    expires_at: state === "connected" ? isoOffsetOrNull(live?.expiresAt ?? null) : null,
    last_used_at: isoOffsetOrNull(live?.lastUsedAt ?? null),
    connect_url: connectUrl(server.id),
  };
}

const connectionRowSelect = {
  serverId: true,
  origin: true,
  state: true,
  account: true,
  expiresAt: true,
  lastUsedAt: true,
  accessTokenCiphertext: true,
} as const;

// GET /v1/me/connections
export async function listMyConnections(organizationId: string, memberId: string): Promise<ConnectionObject[]> {
  const [servers, rows] = await Promise.all([
    db.mcpServer.findMany({
      where: { organizationId, active: true, auth: { in: PER_MEMBER } },
      select: serverForMemberSelect,
      orderBy: { id: "asc" },
    }),
    db.mcpConnection.findMany({ where: { organizationId, memberId }, select: connectionRowSelect }),
  ]);
  const byServer = new Map(rows.map((row) => [row.serverId, row]));
  return servers.map((server) => serialize(server, byServer.get(server.id)));
}

async function myConnection(
  organizationId: string,
  memberId: string,
  server: ServerForMember,
): Promise<ConnectionObject> {
  const row = await db.mcpConnection.findFirst({
    where: { organizationId, memberId, serverId: server.id },
    select: connectionRowSelect,
  });
  return serialize(server, row ?? undefined);
}

// PUT /v1/me/connections/{server}
export async function storeMemberToken(
  member: { organizationId: string; memberId: string; actor: AuditActor },
  serverId: number,
  token: string,
): Promise<ConnectionObject> {
  const server = await findPerMemberServer(member.organizationId, serverId);
  requireAuth(server, "per_user_token");
  const origin = new URL(server.url).origin;
  const binding = { serverId: server.id, memberId: member.memberId };
  const data = {
    origin,
    accessTokenCiphertext: sealBoundSecret(token, origin, binding),
    refreshTokenCiphertext: null,
    expiresAt: null,
    scope: null,
    account: null,
    state: "connected",
    lastError: null,
    refreshLeaseUntil: null,
  };
  await db.$transaction(async (tx) => {
    await tx.mcpConnection.upsert({
      where: { serverId_memberId: { serverId: server.id, memberId: member.memberId } },
      create: {
        id: newId("mcn"),
        organizationId: member.organizationId,
        serverId: server.id,
        memberId: member.memberId,
        ...data,
      },
      update: data,
    });
    await noteEvent(
      {
        organizationId: member.organizationId,
        serverId: server.id,
        memberId: member.memberId,
        actor: member.actor,
        action: "mcp_connection.connected",
        details: { auth: "per_user_token" },
      },
      tx,
    );
  });
  dropMcpSessions(member.organizationId, server.id, member.memberId);
  return myConnection(member.organizationId, member.memberId, server);
}

// DELETE /v1/me/connections/{server}
export async function disconnectMember(
  member: { organizationId: string; memberId: string; actor: AuditActor },
  serverId: number,
): Promise<void> {
  const server = await findPerMemberServer(member.organizationId, serverId);
  await db.$transaction(async (tx) => {
    const { count } = await tx.mcpConnection.deleteMany({
      where: { organizationId: member.organizationId, serverId: server.id, memberId: member.memberId },
    });
    if (count)
      await noteEvent(
        {
          organizationId: member.organizationId,
          serverId: server.id,
          memberId: member.memberId,
          actor: member.actor,
          action: "mcp_connection.disconnected",
          details: { by: "member" },
        },
        tx,
      );
  });
  dropMcpSessions(member.organizationId, server.id, member.memberId);
}

// GET /v1/mcp_servers/{server}/connections
export async function connectionCounts(organizationId: string, serverId: number) {
  const server = await findPerMemberServer(organizationId, serverId);
  const origin = new URL(server.url).origin;
  const rows = await db.mcpConnection.groupBy({
    by: ["state"],
    where: { organizationId, serverId: server.id, origin },
    _count: { _all: true },
  });
  const count = (state: string) => rows.find((row) => row.state === state)?._count._all ?? 0;
  return { connected: count("connected"), needs_reconnect: count("needs_reconnect") };
}

// DELETE /v1/mcp_servers/{server}/connections
export async function disconnectEveryone(organizationId: string, serverId: number, actor: AuditActor): Promise<void> {
  await findPerMemberServer(organizationId, serverId);
  await db.$transaction(async (tx) => {
    const { count } = await tx.mcpConnection.deleteMany({ where: { organizationId, serverId } });
    if (count)
      await noteEvent(
        {
          organizationId,
          serverId,
          memberId: null,
          actor,
          action: "mcp_connection.disconnected",
          details: { by: "admin", count },
        },
        tx,
      );
  });
  dropMcpSessions(organizationId, serverId);
}

/**
 * A connector moved to another origin, or stopped acting as each member: every
 * member's tokens, its pending sign-ins and its client registration go (they were
 * given for the old origin). Called inside the server's update.
 */
export async function dropServerCredentials(
  organizationId: string,
  serverId: number,
  actor: AuditActor,
  why: "moved" | "auth_changed" | "upstream_reset",
  tx: DbOrTx,
): Promise<void> {
  await inTransaction(tx, async (tx) => {
    const { count } = await tx.mcpConnection.deleteMany({ where: { organizationId, serverId } });
    await tx.mcpAuthorization.deleteMany({ where: { organizationId, serverId } });
    await tx.mcpOAuthRegistration.deleteMany({ where: { organizationId, serverId } });
    if (count)
      await noteEvent(
        {
          organizationId,
          serverId,
          memberId: null,
          actor,
          action: "mcp_connection.disconnected",
          details: { by: why, count },
        },
        tx,
      );
  });
}
