import "server-only";
import { z } from "zod";
import { actorOf } from "@/lib/audit/record";
import type { Principal } from "@/lib/auth/principal";
import { isManager } from "@/lib/auth/scopes";
import { db } from "@/lib/db";
import { notFound } from "@/lib/http/errors";
import { isoOffset, isoOffsetOrNull } from "@/lib/time";
import { revokeGrant } from "./grants";
import type { OAuthClientObject, OAuthGrantObject } from "./schemas";

// « Applications connectées »: a member sees and revokes their own grants; an
// owner or administrator sees every member's, and the clients they went to.
// Clients are shared by every organization (registration is anonymous), so an
// organization "deletes" a client by revoking all its members' grants to it;
// the row itself goes once no organization has a grant left.

const kindOf = (value: string) => (value === "metadata_document" ? "metadata_document" : "registered");

function seesAll(principal: Principal): boolean {
  return principal.kind === "member" && isManager(principal.role);
}

export async function listGrants(principal: Principal): Promise<OAuthGrantObject[]> {
  const rows = await db.oAuthGrant.findMany({
    where: {
      organizationId: principal.organizationId,
      revokedAt: null,
      ...(seesAll(principal) ? {} : { memberId: principal.kind === "member" ? principal.memberId : "" }),
    },
    orderBy: { createdAt: "desc" },
    take: 500,
    select: {
      id: true,
      agentId: true,
      scope: true,
      createdAt: true,
      lastUsedAt: true,
      client: { select: { id: true, name: true, kind: true } },
      member: { select: { id: true, name: true } },
    },
  });
  const agents = await db.agent.findMany({
    where: { organizationId: principal.organizationId, id: { in: [...new Set(rows.map((row) => row.agentId))] } },
    select: { id: true, name: true },
  });
  const names = new Map(agents.map((agent) => [agent.id, agent.name]));
  return rows.map((row) => ({
    id: row.id,
    client: { id: row.client.id, name: row.client.name, kind: kindOf(row.client.kind) },
    agent: { id: row.agentId, name: names.get(row.agentId) ?? null },
    member: row.member,
    scope: row.scope === "mcp:read_write" ? "mcp:read_write" : "mcp:read",
    created_at: isoOffset(row.createdAt),
    last_used_at: isoOffsetOrNull(row.lastUsedAt),
  }));
}

/** Revokes one grant: the member's own, or any of the organization's for a manager; anything else is 404. */
export async function revokeGrantAs(principal: Principal, grantId: string): Promise<void> {
  const grant = await db.oAuthGrant.findFirst({
    where: { id: grantId, organizationId: principal.organizationId, revokedAt: null },
    select: { id: true, organizationId: true, memberId: true },
  });
  const own = principal.kind === "member" && grant?.memberId === principal.memberId;
  if (!grant || !(own || seesAll(principal))) throw notFound("Grant");
  await revokeGrant(grant, own ? "member" : "admin", actorOf(principal));
}

export async function listClients(organizationId: string): Promise<OAuthClientObject[]> {
  const rows = await db.oAuthClient.findMany({
    where: { grants: { some: { organizationId } } },
    orderBy: { createdAt: "desc" },
    take: 500,
    select: {
      id: true,
      clientId: true,
      kind: true,
      name: true,
      uri: true,
      redirectUris: true,
      createdAt: true,
      _count: { select: { grants: { where: { organizationId, revokedAt: null } } } },
    },
  });
  return rows.map((row) => ({
    id: row.id,
    client_id: row.clientId,
    kind: kindOf(row.kind),
    name: row.name,
    uri: row.uri,
    redirect_uris: z.array(z.string()).catch([]).parse(row.redirectUris),
    created_at: isoOffset(row.createdAt),
    active_grants: row._count.grants,
  }));
}

export async function deleteClientFor(principal: Principal, id: string): Promise<number> {
  const { organizationId } = principal;
  const client = await db.oAuthClient.findFirst({
    where: { id, grants: { some: { organizationId } } },
    select: { id: true, name: true },
  });
  if (!client) throw notFound("OAuth client");
  const grants = await db.oAuthGrant.findMany({
    where: { clientId: client.id, organizationId, revokedAt: null },
    select: { id: true, organizationId: true },
  });
  for (const grant of grants) await revokeGrant(grant, "client_deleted", actorOf(principal));
  // The organization's revoked grants go with it; the client row goes once no organization has one left.
  await db.oAuthGrant.deleteMany({ where: { clientId: client.id, organizationId } });
  await db.oAuthClient.deleteMany({ where: { id: client.id, grants: { none: {} } } });
  return grants.length;
}
