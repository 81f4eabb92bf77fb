import "server-only";
import { createHmac, timingSafeEqual } from "node:crypto";
import { authCookieNames } from "@/lib/auth/cookies";
import { authSecret } from "@/lib/auth/secret";

// The consent form's CSRF token: an HMAC of the member's session cookie and of
// the authorization request it answers. Another site can neither read the
// cookie nor the page, so it cannot forge a « Autoriser » for the member; and a
// token is good for this one request only (client, PKCE challenge, scope).

interface CookieReader {
  get(name: string): { value: string } | undefined;
}

function sessionCookie(cookies: CookieReader): string | null {
  const name = authCookieNames().sessionToken;
  const whole = cookies.get(name)?.value;
  if (whole) return whole;
  const chunks: string[] = [];
  for (let i = 0; cookies.get(`${name}.${i}`); i++) chunks.push(cookies.get(`${name}.${i}`)!.value);
  return chunks.length ? chunks.join("") : null;
}

export function consentToken(
  cookies: CookieReader,
  request: { clientId: string; codeChallenge: string; scope: string; resource: string },
): string | null {
  const session = sessionCookie(cookies);
  if (!session) return null;
  return createHmac("sha256", authSecret())
    .update(
      ["oauth-consent", session, request.clientId, request.codeChallenge, request.scope, request.resource].join("\n"),
    )
    .digest("base64url");
}

export function consentTokenMatches(expected: string | null, given: unknown): boolean {
  if (!expected || typeof given !== "string") return false;
  const a = Buffer.from(expected);
  const b = Buffer.from(given);
  return a.length === b.length && timingSafeEqual(a, b);
}
