import "server-only";
import { getServerSession } from "next-auth";
import { redirect } from "next/navigation";
import { db } from "@/lib/db";
import { authOptions } from "./options";

/** For console pages: the signed-in member with their organization, or a redirect to sign-in. */
export async function requireMember() {
  const session = await getServerSession(authOptions);
  if (!session?.member) redirect("/connexion");
  const member = await db.member.findUnique({
    where: { id: session.member.id },
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
  return member;
}
