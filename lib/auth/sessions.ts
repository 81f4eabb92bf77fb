import "server-only";
import { db } from "@/lib/db";
import { env } from "@/lib/env";
import { newId } from "@/lib/ids";
import { Role } from "./scopes";

// Console sessions live in the database: the session cookie (a JWT) carries only
// the id of its row, and every request reads that row with its member. So
// signing out, "sign out everywhere", a role change and a removed member take
// effect at the next request on every instance, with no cache to invalidate.

/** The member behind a live session, as the database says now (role included). */
export interface LiveSession {
  memberId: string;
  organizationId: string;
  email: string;
  role: Role;
}

/** Thrown inside next-auth when a cookie names a session that has ended: next-auth answers an empty session and clears the cookie. */
export class SessionEnded extends Error {
  name = "SessionEnded";
  constructor() {
    super("SessionEnded");
  }
}

const idleMs = () => env.GUICHET_SESSION_IDLE_TIMEOUT * 1000;

export async function startSession(memberId: string, now = new Date()): Promise<string> {
  const id = newId("ses");
  // Ended sessions nobody replays stay as rows: the member's own go at each sign-in, everyone's now and then.
  const ended = [{ expiresAt: { lte: now } }, { lastSeenAt: { lte: new Date(now.getTime() - idleMs()) } }];
  await db.memberSession.deleteMany({ where: Math.random() < 0.01 ? { OR: ended } : { memberId, OR: ended } });
  await db.memberSession.create({
    data: {
      id,
      memberId,
      createdAt: now,
      lastSeenAt: now,
      expiresAt: new Date(now.getTime() + env.GUICHET_SESSION_MAX_AGE * 1000),
    },
  });
  return id;
}

/** The live session's member, or null when it ended (signed out, expired, idle too long, member removed). Marks it as seen. */
export async function resumeSession(id: string, now = new Date()): Promise<LiveSession | null> {
  const row = await db.memberSession.findUnique({
    where: { id },
    select: {
      lastSeenAt: true,
      expiresAt: true,
      member: { select: { id: true, organizationId: true, email: true, role: true, deactivatedAt: true } },
    },
  });
  if (!row) return null;
  const idle = now.getTime() - row.lastSeenAt.getTime();
  const role = Role.safeParse(row.member.role);
  if (row.expiresAt <= now || idle >= idleMs() || !role.success || row.member.deactivatedAt) {
    await endSession(id);
    return null;
  }
  // Writing on every request would turn each read into a write: a tenth of the idle timeout (at most a minute) is precise enough.
  if (idle >= Math.min(60_000, idleMs() / 10))
    await db.memberSession.updateMany({ where: { id }, data: { lastSeenAt: now } });
  return {
    memberId: row.member.id,
    organizationId: row.member.organizationId,
    email: row.member.email,
    role: role.data,
  };
}

export async function endSession(id: string): Promise<void> {
  await db.memberSession.deleteMany({ where: { id } });
}

/** "Sign out everywhere": every session of the member, this one included. Returns how many ended. */
export async function endAllSessions(memberId: string): Promise<number> {
  return (await db.memberSession.deleteMany({ where: { memberId } })).count;
}
