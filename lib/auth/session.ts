import "server-only";
import { cookies, headers } from "next/headers";
import { redirect } from "next/navigation";
import { db } from "@/lib/db";
import { REQUEST_PATH_HEADER } from "@/lib/openapi/method-gate";
import { signInPathFor } from "./callback-url";
import { Role } from "./scopes";
import { sessionFromCookies } from "./session-cookie";

/** Sign-in, then back to the page that was asked for (a proposal's link opened from an e-mail). */
async function redirectToSignIn(): Promise<never> {
  redirect(signInPathFor((await headers()).get(REQUEST_PATH_HEADER)));
}

/** For console pages: the signed-in member with their organization, or a redirect to sign-in. */
export async function requireMember() {
  // The session cookie alone: a planted callback-url cookie changes nothing here.
  const session = await sessionFromCookies(await cookies());
  if (!session) return redirectToSignIn();
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
  if (!member || member.deactivatedAt) return redirectToSignIn();
  return { ...member, role: Role.parse(member.role) };
}

/** Whether the request carries a live session (for the sign-in pages, which send signed-in people on). */
export async function hasLiveSession(): Promise<boolean> {
  return (await sessionFromCookies(await cookies())) !== null;
}
