import "server-only";
import { dropMcpSessions } from "@/lib/mcp/session-pool";
import { recordAudit, type AuditActor } from "@/lib/audit/record";
import { hashPassword, verifyPassword } from "@/lib/auth/passwords";
import type { Principal } from "@/lib/auth/principal";
import { Role } from "@/lib/auth/scopes";
import { db, type DbOrTx, type Tx } from "@/lib/db";
import { lockOrganization } from "@/lib/files/quota";
import { ApiError, notFound } from "@/lib/http/errors";
import { afterCursor } from "@/lib/http/validation";
import { isoOffset, isoOffsetOrNull } from "@/lib/time";
import { passwordProblem, passwordProblemMessages } from "./password-policy";
import type { MemberObject, MemberUpdateBody } from "./schemas";

// Members of an organization. Sessions are read with their member on every
// request (lib/auth/sessions.ts), so a role change applies at the next request;
// deactivating or removing also deletes the sessions, and approvals are counted
// again at commit against the members as they are then (lib/proposals/commit-checks.ts).

const memberSelect = { id: true, email: true, name: true, role: true, deactivatedAt: true, createdAt: true } as const;
type StoredMember = {
  id: string;
  email: string;
  name: string;
  role: string;
  deactivatedAt: Date | null;
  createdAt: Date;
};
type MemberRow = StoredMember & { lastSignInAt: Date | null };

/** The person acting: a signed-in owner or admin. */
export interface MemberManager {
  organizationId: string;
  memberId: string;
  role: Role;
  email: string;
}

const actorOfManager = (manager: MemberManager): AuditActor => ({
  type: "member",
  id: manager.memberId,
  label: manager.email,
});

export function serializeMember(row: MemberRow): MemberObject {
  return {
    id: row.id,
    email: row.email,
    name: row.name,
    role: Role.catch("viewer").parse(row.role),
    status: row.deactivatedAt ? "deactivated" : "active",
    created_at: isoOffset(row.createdAt),
    last_sign_in_at: isoOffsetOrNull(row.lastSignInAt),
  };
}

/**
 * Each member's last successful sign-in, from the audit trail (which every sign-in writes):
 * null when they never signed in, or when it is older than the trail's retention.
 */
async function withLastSignIn(tx: DbOrTx, organizationId: string, rows: StoredMember[]): Promise<MemberRow[]> {
  if (rows.length === 0) return [];
  const latest = await tx.auditEvent.groupBy({
    by: ["targetId"],
    where: { organizationId, action: "sign_in.succeeded", targetId: { in: rows.map((row) => row.id) } },
    _max: { createdAt: true },
  });
  const byMember = new Map(latest.map((entry) => [entry.targetId, entry._max.createdAt]));
  return rows.map((row) => ({ ...row, lastSignInAt: byMember.get(row.id) ?? null }));
}

export async function listMembers(
  organizationId: string,
  query: { limit: number; cursor?: string },
): Promise<MemberRow[]> {
  const rows = await db.member.findMany({
    where: { organizationId, ...afterCursor(query.cursor) },
    select: memberSelect,
    orderBy: [{ createdAt: "desc" }, { id: "desc" }],
    take: query.limit + 1,
  });
  return withLastSignIn(db, organizationId, rows);
}

async function findMember(tx: Tx, organizationId: string, id: string): Promise<StoredMember> {
  const member = await tx.member.findFirst({ where: { id, organizationId }, select: memberSelect });
  if (!member) throw notFound("Member");
  return member;
}

const reserved = () =>
  new ApiError("owner_role_reserved", "Only an owner can grant the owner role or change an owner.");

/** Refuses a change that would leave the organization without an active owner (under the organization's lock). */
async function assertAnotherOwner(tx: Tx, organizationId: string, memberId: string): Promise<void> {
  const others = await tx.member.count({
    where: { organizationId, role: "owner", deactivatedAt: null, id: { not: memberId } },
  });
  if (others === 0)
    throw new ApiError(
      "last_owner",
      "This member is the organization's last active owner: make someone else owner first.",
    );
}

export async function updateMember(
  manager: MemberManager,
  memberId: string,
  body: MemberUpdateBody,
): Promise<MemberRow> {
  return db.$transaction(async (tx) => {
    await lockOrganization(tx, manager.organizationId);
    const member = await findMember(tx, manager.organizationId, memberId);
    if (manager.role !== "owner" && (member.role === "owner" || body.role === "owner")) throw reserved();
    const demotes = member.role === "owner" && body.role !== undefined && body.role !== "owner";
    const deactivates = body.active === false && member.deactivatedAt === null;
    if ((demotes || deactivates) && member.role === "owner")
      await assertAnotherOwner(tx, manager.organizationId, member.id);
    const actor = actorOfManager(manager);
    const target = { type: "member", id: member.id };
    const updated = await tx.member.update({
      where: { id: member.id },
      data: {
        role: body.role,
        deactivatedAt:
          body.active === undefined ? undefined : body.active ? null : (member.deactivatedAt ?? new Date()),
      },
      select: memberSelect,
    });
    if (updated.role !== member.role)
      await recordAudit(
        {
          organizationId: manager.organizationId,
          actor,
          action: "member.role_changed",
          target,
          details: { email: member.email, from: member.role, to: updated.role },
        },
        tx,
      );
    if (deactivates) {
      await tx.memberSession.deleteMany({ where: { memberId: member.id } });
      await recordAudit(
        {
          organizationId: manager.organizationId,
          actor,
          action: "member.deactivated",
          target,
          details: { email: member.email },
        },
        tx,
      );
    }
    if (body.active === true && member.deactivatedAt !== null)
      await recordAudit(
        {
          organizationId: manager.organizationId,
          actor,
          action: "member.reactivated",
          target,
          details: { email: member.email },
        },
        tx,
      );
    return (await withLastSignIn(tx, manager.organizationId, [updated]))[0];
  });
}

/** Removes the member; their sessions go with the row (cascade), their past decisions stay as history. */
export async function removeMember(manager: MemberManager, memberId: string): Promise<void> {
  await db.$transaction(async (tx) => {
    await lockOrganization(tx, manager.organizationId);
    const member = await findMember(tx, manager.organizationId, memberId);
    if (manager.role !== "owner" && member.role === "owner") throw reserved();
    if (member.role === "owner") await assertAnotherOwner(tx, manager.organizationId, member.id);
    // Explicit rather than relying on the cascade, which SQLite applies only with foreign keys on.
    await tx.memberSession.deleteMany({ where: { memberId: member.id } });
    // Their own connections to connectors (tokens included) go with them.
    const connections = await tx.mcpConnection.findMany({
      where: { organizationId: manager.organizationId, memberId: member.id },
      select: { serverId: true },
    });
    await tx.mcpConnection.deleteMany({ where: { organizationId: manager.organizationId, memberId: member.id } });
    await tx.mcpAuthorization.deleteMany({ where: { organizationId: manager.organizationId, memberId: member.id } });
    for (const { serverId } of connections) dropMcpSessions(manager.organizationId, serverId, member.id);
    await tx.member.delete({ where: { id: member.id } });
    await recordAudit(
      {
        organizationId: manager.organizationId,
        actor: actorOfManager(manager),
        action: "member.removed",
        target: { type: "member", id: member.id },
        details: { email: member.email, role: member.role },
      },
      tx,
    );
  });
}

/** Refuses a weak password with the field's typed error. */
export function assertAcceptablePassword(
  field: string,
  password: string,
  identity: { email: string; organization: string },
) {
  const problem = passwordProblem(password, identity);
  if (problem)
    throw new ApiError("invalid_parameter", passwordProblemMessages[problem], {
      errors: [{ field, code: problem, message: passwordProblemMessages[problem] }],
    });
}

/** A member changes their own password (their current password first). */
export async function changeOwnPassword(
  member: MemberManager,
  input: { current: string; next: string },
): Promise<void> {
  const row = await db.member.findFirst({
    where: { id: member.memberId, organizationId: member.organizationId },
    select: { passwordHash: true, email: true, organization: { select: { name: true } } },
  });
  if (!row) throw notFound("Member");
  if (!(await verifyPassword(input.current, row.passwordHash)))
    throw new ApiError("password_incorrect", "The current password is not this one.", {
      errors: [{ field: "current_password", code: "incorrect", message: "The current password is not this one." }],
    });
  assertAcceptablePassword("new_password", input.next, { email: row.email, organization: row.organization.name });
  const passwordHash = await hashPassword(input.next);
  await db.$transaction(async (tx) => {
    await tx.member.update({ where: { id: member.memberId }, data: { passwordHash } });
    await recordAudit(
      {
        organizationId: member.organizationId,
        actor: actorOfManager(member),
        action: "member.password_changed",
        target: { type: "member", id: member.memberId },
      },
      tx,
    );
  });
}

/** The signed-in member behind a session-only request, as the member services take it. */
export function managerOf(principal: Principal): MemberManager {
  if (principal.kind !== "member") throw new ApiError("forbidden", "This action needs a signed-in person.");
  return {
    organizationId: principal.organizationId,
    memberId: principal.memberId,
    role: principal.role,
    email: principal.email,
  };
}
