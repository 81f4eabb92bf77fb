import "server-only";
import { createHash, randomBytes } from "node:crypto";
import { recordAudit } from "@/lib/audit/record";
import { hashPassword } from "@/lib/auth/passwords";
import { Role } from "@/lib/auth/scopes";
import { db, isUniqueViolation } from "@/lib/db";
import { env } from "@/lib/env";
import { log } from "@/lib/log";
import { mailEnabled, sendMail } from "@/lib/mail/send";
import { ApiError, notFound } from "@/lib/http/errors";
import { rateLimited } from "@/lib/http/rate-limit";
import { newId } from "@/lib/ids";
import { afterCursor } from "@/lib/http/validation";
import { isoOffset } from "@/lib/time";
import { assertAcceptablePassword, type MemberManager } from "./service";
import type { InvitationObject } from "./schemas";

// Invitations: a single-use link, valid 7 days, whose token is stored only as
// its SHA-256 (shown once to the inviter, like an API key's secret). Accepting
// creates the member with the invited role; the link then works no more.

export const INVITATION_TTL_MS = 7 * 24 * 60 * 60 * 1000;
const TOKEN_PREFIX = "inv_";

const hashToken = (token: string) => createHash("sha256").update(token).digest("hex");

type InvitationRow = {
  id: string;
  email: string;
  role: string;
  invitedById: string | null;
  expiresAt: Date;
  acceptedAt: Date | null;
  revokedAt: Date | null;
  createdAt: Date;
};
const invitationSelect = {
  id: true,
  email: true,
  role: true,
  invitedById: true,
  expiresAt: true,
  acceptedAt: true,
  revokedAt: true,
  createdAt: true,
} as const;

function status(row: InvitationRow, now = new Date()): InvitationObject["status"] {
  if (row.acceptedAt) return "accepted";
  if (row.revokedAt) return "revoked";
  return row.expiresAt <= now ? "expired" : "pending";
}

export function serializeInvitation(row: InvitationRow): InvitationObject {
  return {
    id: row.id,
    email: row.email,
    role: Role.catch("viewer").parse(row.role),
    status: status(row),
    invited_by: row.invitedById,
    expires_at: isoOffset(row.expiresAt),
    created_at: isoOffset(row.createdAt),
  };
}

export function listInvitations(organizationId: string, query: { limit: number; cursor?: string }) {
  return db.invitation.findMany({
    where: { organizationId, ...afterCursor(query.cursor) },
    select: invitationSelect,
    orderBy: [{ createdAt: "desc" }, { id: "desc" }],
    take: query.limit + 1,
  });
}

const HOUR_MS = 60 * 60 * 1000;

/**
 * Each admin sends at most GUICHET_INVITATIONS_PER_HOUR invitations in any hour (each may be an
 * e-mail to an outside address). Counted from the stored invitations, so every instance on the
 * database sees the same count; Retry-After is when the oldest of the hour's invitations leaves it.
 */
async function assertInvitationAllowance(manager: MemberManager, now = new Date()): Promise<void> {
  const limit = env.GUICHET_INVITATIONS_PER_HOUR;
  const recent = await db.invitation.findMany({
    where: {
      organizationId: manager.organizationId,
      invitedById: manager.memberId,
      createdAt: { gt: new Date(now.getTime() - HOUR_MS) },
    },
    select: { createdAt: true },
    orderBy: { createdAt: "desc" },
    take: limit,
  });
  if (recent.length < limit) return;
  const oldest = recent[recent.length - 1].createdAt.getTime();
  throw rateLimited(oldest + HOUR_MS - now.getTime(), `At most ${limit} invitations per hour and administrator.`);
}

const actorOf = (manager: MemberManager) => ({ type: "member" as const, id: manager.memberId, label: manager.email });

/**
 * A new invitation and its token (returned once). A pending invitation of the
 * same address in this organization is revoked: the newest link is the one that works.
 */
export async function createInvitation(
  manager: MemberManager,
  input: { email: string; role: Role },
): Promise<{ invitation: InvitationRow; token: string }> {
  if (manager.role !== "owner" && input.role === "owner")
    throw new ApiError("owner_role_reserved", "Only an owner can invite an owner.");
  // An address that is already a member here is said so (it reveals nothing outside this organization).
  // One that is a member elsewhere is invited like any other, so the answer never tells an admin which
  // addresses other organizations hold; using that link is refused at acceptance (email_unavailable).
  const here = await db.member.count({ where: { email: input.email, organizationId: manager.organizationId } });
  if (here > 0)
    throw new ApiError("email_unavailable", "This address already belongs to a member: it cannot be invited.", {
      errors: [{ field: "email", code: "email_unavailable", message: "This address already belongs to a member." }],
    });
  await assertInvitationAllowance(manager);
  const token = TOKEN_PREFIX + randomBytes(32).toString("base64url");
  const now = new Date();
  const invitation = await db.$transaction(async (tx) => {
    const previous = await tx.invitation.updateMany({
      where: { organizationId: manager.organizationId, email: input.email, acceptedAt: null, revokedAt: null },
      data: { revokedAt: now },
    });
    const invitation = await tx.invitation.create({
      data: {
        id: newId("inv"),
        organizationId: manager.organizationId,
        email: input.email,
        role: input.role,
        tokenHash: hashToken(token),
        invitedById: manager.memberId,
        expiresAt: new Date(now.getTime() + INVITATION_TTL_MS),
        createdAt: now,
      },
      select: invitationSelect,
    });
    await recordAudit(
      {
        organizationId: manager.organizationId,
        actor: actorOf(manager),
        action: "member.invited",
        target: { type: "invitation", id: invitation.id },
        details: { email: input.email, role: input.role, replaced: previous.count },
      },
      tx,
    );
    return invitation;
  });
  return { invitation, token };
}

export async function revokeInvitation(manager: MemberManager, id: string): Promise<InvitationRow> {
  return db.$transaction(async (tx) => {
    const invitation = await tx.invitation.findFirst({
      where: { id, organizationId: manager.organizationId },
      select: invitationSelect,
    });
    if (!invitation) throw notFound("Invitation");
    if (manager.role !== "owner" && invitation.role === "owner")
      throw new ApiError("owner_role_reserved", "Only an owner can revoke an owner's invitation.");
    const moved = await tx.invitation.updateMany({
      where: { id, acceptedAt: null, revokedAt: null },
      data: { revokedAt: new Date() },
    });
    if (moved.count === 1)
      await recordAudit(
        {
          organizationId: manager.organizationId,
          actor: actorOf(manager),
          action: "invitation.revoked",
          target: { type: "invitation", id },
          details: { email: invitation.email },
        },
        tx,
      );
    return tx.invitation.findUniqueOrThrow({ where: { id }, select: invitationSelect });
  });
}

const invalid = () =>
  new ApiError("invitation_invalid", "This invitation link is not valid: it was used, revoked, or has expired.");

async function findByToken(token: string) {
  if (!token.startsWith(TOKEN_PREFIX) || token.length > 200) return null;
  return db.invitation.findUnique({
    where: { tokenHash: hashToken(token) },
    select: { ...invitationSelect, organization: { select: { name: true } } },
  });
}

/** The invitation behind a link that still works (with its organization's name); null when it works no more. */
export async function invitationByToken(token: string, now = new Date()) {
  const invitation = await findByToken(token);
  if (!invitation || status(invitation, now) !== "pending") return null;
  return invitation;
}

/**
 * What the accept page shows: the pending invitation, or why its link works no more. Only the
 * holder of the link learns whether it was used, revoked or expired; an unknown token is "unknown".
 */
export async function invitationLinkState(token: string, now = new Date()) {
  const invitation = await findByToken(token);
  if (!invitation) return { status: "unknown" as const };
  const current = status(invitation, now);
  if (current === "pending" && (await db.member.count({ where: { email: invitation.email } })) > 0)
    return { status: "taken" as const, email: invitation.email };
  return current === "pending"
    ? {
        status: current,
        email: invitation.email,
        role: Role.catch("viewer").parse(invitation.role),
        organization: invitation.organization.name,
        expiresAt: invitation.expiresAt,
      }
    : { status: current };
}

const addressTaken = () =>
  new ApiError(
    "email_unavailable",
    "This address already has a Guichet account (an address belongs to one organization): sign in with it, or ask for an invitation to another address.",
    {
      errors: [{ field: "email", code: "email_unavailable", message: "This address already belongs to a member." }],
    },
  );

/**
 * Accepts: the member is created with the invited role and the link is spent, in one transaction.
 * An address that has become (or already was) a member anywhere is refused with 409 email_unavailable,
 * and nothing changes: the link stays pending, no organization gains or loses a member.
 */
export async function acceptInvitation(input: { token: string; name: string; password: string }) {
  const invitation = await invitationByToken(input.token);
  if (!invitation) throw invalid();
  if ((await db.member.count({ where: { email: invitation.email } })) > 0) throw addressTaken();
  assertAcceptablePassword("password", input.password, {
    email: invitation.email,
    organization: invitation.organization.name,
  });
  const passwordHash = await hashPassword(input.password);
  const now = new Date();
  try {
    return await db.$transaction(async (tx) => {
      // Spending the link first: of two concurrent acceptances, one finds it already used.
      const spent = await tx.invitation.updateMany({
        where: { id: invitation.id, acceptedAt: null, revokedAt: null, expiresAt: { gt: now } },
        data: { acceptedAt: now },
      });
      if (spent.count === 0) throw invalid();
      const organizationId = (await tx.invitation.findUniqueOrThrow({ where: { id: invitation.id } })).organizationId;
      const member = await tx.member.create({
        data: {
          id: newId("mem"),
          organizationId,
          email: invitation.email,
          name: input.name,
          role: invitation.role,
          passwordHash,
        },
        select: { id: true, email: true },
      });
      await recordAudit(
        {
          organizationId,
          actor: { type: "member", id: member.id, label: member.email },
          action: "invitation.accepted",
          target: { type: "member", id: member.id },
          details: { email: member.email, role: invitation.role, invitation: invitation.id },
        },
        tx,
      );
      return member;
    });
  } catch (error) {
    // The address became a member meanwhile (another organization's invitation, or a seed): rolled back.
    if (isUniqueViolation(error)) throw addressTaken();
    throw error;
  }
}

/**
 * The accept page's address (app/(auth)/invitation/[token]): the console's public origin, as in the
 * approver e-mails' links, when configured; else the request's own origin.
 */
export function invitationUrl(request: Request, token: string): string {
  return new URL(`/invitation/${token}`, env.consoleOrigin ?? new URL(request.url).origin).toString();
}

/** E-mails the link when SMTP is configured; the inviter still gets the link either way. True when the relay took it. */
export async function mailInvitation(invitation: { email: string; role: string }, url: string): Promise<boolean> {
  if (!mailEnabled()) return false;
  try {
    await sendMail({
      to: invitation.email,
      subject: "Invitation à rejoindre Guichet",
      text: [
        "Bonjour,",
        "",
        `Vous êtes invité(e) à rejoindre une organisation sur Guichet (rôle : ${invitation.role}).`,
        "Choisissez votre nom et votre mot de passe en ouvrant ce lien, valable 7 jours et une seule fois :",
        url,
      ].join("\n"),
    });
    return true;
  } catch (error) {
    log("warn", "invitation_mail_failed", { error: error instanceof Error ? error.name : "unknown" });
    return false;
  }
}
