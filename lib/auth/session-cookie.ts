import "server-only";
import { decode } from "next-auth/jwt";
import { authCookieNames } from "./cookies";
import { authSecret } from "./secret";
import { type LiveSession, resumeSession } from "./sessions";

interface CookieReader {
  get(name: string): { value: string } | undefined;
}

/**
 * The live session named by the session cookie, read directly: the JWT is
 * decoded with next-auth's own `decode` and its row resumed. Unlike
 * getServerSession, no other next-auth cookie (a planted callback-url) is
 * parsed, so nothing but the session cookie changes the answer. A chunked
 * cookie (`.0`, `.1`…) is joined as next-auth writes it.
 */
export async function sessionFromCookies(cookies: CookieReader): Promise<LiveSession | null> {
  const name = authCookieNames().sessionToken;
  let token = cookies.get(name)?.value;
  if (!token) {
    const chunks: string[] = [];
    for (let i = 0; ; i++) {
      const chunk = cookies.get(`${name}.${i}`)?.value;
      if (!chunk) break;
      chunks.push(chunk);
    }
    token = chunks.length ? chunks.join("") : undefined;
  }
  if (!token) return null;
  let payload: Awaited<ReturnType<typeof decode>>;
  try {
    payload = await decode({ token, secret: authSecret() });
  } catch {
    return null;
  }
  const sessionId = payload?.sessionId;
  if (typeof sessionId !== "string") return null;
  return resumeSession(sessionId);
}

/** A cookie header as the reader above wants it (for handlers that have only the Request). */
export function cookieHeaderReader(header: string | null): CookieReader {
  const jar = new Map<string, string>();
  for (const part of (header ?? "").split(";")) {
    const at = part.indexOf("=");
    if (at <= 0) continue;
    const key = part.slice(0, at).trim();
    if (!jar.has(key)) jar.set(key, part.slice(at + 1).trim());
  }
  return { get: (name) => (jar.has(name) ? { value: jar.get(name)! } : undefined) };
}
