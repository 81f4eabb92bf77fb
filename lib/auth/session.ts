import "server-only";
import { cookies } from "next/headers";
import { redirect } from "next/navigation";
import { db } from "@/lib/db";
import { Role } from "./scopes";
import { sessionFromCookies } from "./session-cookie";

/** For console pages: the signed-in member with their organization, or a redirect to sign-in. */
export async function requireMember() {
  // The session cookie alone: a planted callback-url cookie changes nothing here.
  const session = await sessionFromCookies(await cookies());
  if (!session) redirect("/connexion");
  const member = await db.member.findUnique({
    where: { id: session.memberId },
    select: {
      id: true,
      name: true,
      email: true,
      role: true,
      deactivatedAt: true,
      organization: { select: { id: true, name: true, planId: true } },
    },
  });
  if (!member || member.deactivatedAt) redirect("/connexion");
  return { ...member, role: Role.parse(member.role) };
}

/** Whether the request carries a live session (for the sign-in pages, which send signed-in people on). */
export async function hasLiveSession(): Promise<boolean> {
  return (await sessionFromCookies(await cookies())) !== null;
}
