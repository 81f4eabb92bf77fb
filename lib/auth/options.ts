import "server-only";
import type { NextAuthOptions } from "next-auth";
import CredentialsProvider from "next-auth/providers/credentials";
import { db } from "@/lib/db";
import { env } from "@/lib/env";
import { log } from "@/lib/log";
import { recordAudit } from "@/lib/audit/record";
import { callbackPathOrDefault, safeCallbackPath } from "./callback-url";
import { clientAddress } from "./client-address";
import { authCookies } from "./cookies";
import { authSecret } from "./secret";
import { verifyMemberPassword } from "./passwords";
import { endSession, resumeSession, SessionEnded, startSession } from "./sessions";
import {
  assertSignInAllowed,
  clearAccountFailures,
  recordSignInFailure,
  SignInThrottled,
  throttleKeys,
} from "./throttle";

const MAX_EMAIL_LENGTH = 254;

/**
 * Every sign-in attempt goes to the audit trail with the e-mail as typed (cut to
 * an address's longest length) and the client's address, never the password. An
 * attempt on an e-mail no member has belongs to no organization.
 */
async function recordSignIn(
  email: string,
  address: string,
  outcome: "succeeded" | "wrong_password" | "unknown_account" | "throttled" | "deactivated",
  known?: { id: string; organizationId: string },
) {
  const member =
    known ??
    (email.length <= MAX_EMAIL_LENGTH
      ? await db.member.findUnique({ where: { email }, select: { id: true, organizationId: true } })
      : null);
  await recordAudit({
    organizationId: member?.organizationId ?? null,
    actor:
      outcome === "succeeded" && member
        ? { type: "member", id: member.id, label: email }
        : { type: "anonymous", label: email.slice(0, MAX_EMAIL_LENGTH) },
    action: outcome === "succeeded" ? "sign_in.succeeded" : "sign_in.failed",
    target: member ? { type: "member", id: member.id } : null,
    details: {
      email: email.slice(0, MAX_EMAIL_LENGTH),
      address: address.slice(0, 100),
      ...(outcome === "succeeded" ? {} : { reason: outcome }),
    },
  });
}

/** Known refusals next-auth reports as errors: answered as they should be, not logged as failures. */
const expectedErrors = new Set(["SessionEnded", "SignInThrottled"]);

/**
 * Where next-auth sends the browser after sign-in or sign-out. Only same-origin
 * paths: `//evil`, `/\\evil`, other origins and garbage land on the default page,
 * never a 500. On `requestOrigin` (the console origin the browser is on, given by
 * the auth route) rather than NEXTAUTH_URL's, so a console opened at 127.0.0.1
 * stays on 127.0.0.1.
 */
export function redirectTarget(url: string, baseUrl: string, requestOrigin?: string | null): string {
  const base = URL.canParse(baseUrl) ? new URL(baseUrl).origin : undefined;
  const origin = requestOrigin ?? base ?? "";
  const path = (requestOrigin ? safeCallbackPath(url, requestOrigin) : null) ?? callbackPathOrDefault(url, base);
  return `${origin}${path}`;
}

// next-auth v4, credentials only. The cookie is a JWT naming a server-side
// session row (lib/auth/sessions.ts), read on every request with its member.
export const authOptions: NextAuthOptions = {
  secret: authSecret(),
  session: { strategy: "jwt", maxAge: env.GUICHET_SESSION_MAX_AGE },
  pages: { signIn: "/connexion" },
  cookies: authCookies(),
  providers: [
    CredentialsProvider({
      name: "Adresse e-mail",
      credentials: { email: { label: "E-mail", type: "email" }, password: { label: "Mot de passe", type: "password" } },
      async authorize(credentials, request) {
        const email = credentials?.email?.trim().toLowerCase();
        const password = credentials?.password;
        if (!email || !password) return null;
        const address = clientAddress(request?.headers ?? {});
        // No member has a longer address (RFC 5321): such an "e-mail" is counted on the address only, not stored.
        const keys = email.length > MAX_EMAIL_LENGTH ? throttleKeys(null, address) : throttleKeys(email, address);
        try {
          await assertSignInAllowed(keys);
        } catch (error) {
          if (error instanceof SignInThrottled) {
            log("warn", "sign_in_refused", {
              email: email.slice(0, MAX_EMAIL_LENGTH),
              address,
              reason: "throttled",
              retry_after_ms: error.retryAfterMs,
            });
            await recordSignIn(email, address, "throttled");
          }
          throw error;
        }
        const member = await db.member.findUnique({
          where: { email },
          select: { id: true, email: true, name: true, passwordHash: true, organizationId: true, deactivatedAt: true },
        });
        const matches = await verifyMemberPassword(password, member?.passwordHash);
        if (!member || !matches) {
          const failures = await recordSignInFailure(keys);
          log("warn", "sign_in_failed", {
            email: email.slice(0, MAX_EMAIL_LENGTH),
            address,
            reason: member ? "wrong_password" : "unknown_account",
            failures,
          });
          await recordSignIn(email, address, member ? "wrong_password" : "unknown_account", member ?? undefined);
          return null;
        }
        if (member.deactivatedAt) {
          // The right password of a deactivated member: refused like a wrong one, recorded as what it is.
          log("warn", "sign_in_failed", { email, address, reason: "deactivated" });
          await recordSignIn(email, address, "deactivated", member);
          return null;
        }
        await clearAccountFailures(email);
        await recordSignIn(email, address, "succeeded", member);
        return { id: member.id, email: member.email, name: member.name };
      },
    }),
  ],
  callbacks: {
    redirect: ({ url, baseUrl }) => redirectTarget(url, baseUrl),
    async jwt({ token, user }) {
      // At sign-in, a new session row; afterwards, the row and its member as they are now.
      const sessionId = user ? await startSession(user.id) : token.sessionId;
      const live = sessionId ? await resumeSession(sessionId) : null;
      if (!live) throw new SessionEnded();
      return { ...token, sessionId, memberId: live.memberId, organizationId: live.organizationId, role: live.role };
    },
    async session({ session, token }) {
      if (token.memberId && token.organizationId && token.role) {
        session.member = { id: token.memberId, organizationId: token.organizationId, role: token.role };
      }
      return session;
    },
  },
  events: {
    async signOut({ token }) {
      if (token?.sessionId) await endSession(token.sessionId);
    },
  },
  logger: {
    error(code, metadata) {
      const error = metadata instanceof Error ? metadata : (metadata as { error?: unknown } | undefined)?.error;
      if (error instanceof Error && expectedErrors.has(error.name)) return;
      log("error", "auth_error", { code, message: error instanceof Error ? error.message : undefined });
    },
    warn(code) {
      log("warn", "auth_warning", { code });
    },
    debug() {},
  },
};
