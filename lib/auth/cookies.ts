import type { CookiesOptions } from "next-auth";

/** The console's cookies use `__Host-` names over https (no Domain, Path=/, Secure), plain names over http. */
export function usesSecureCookies(nextAuthUrl = process.env.NEXTAUTH_URL): boolean {
  return typeof nextAuthUrl === "string" && nextAuthUrl.startsWith("https://");
}

export interface AuthCookieNames {
  sessionToken: string;
  callbackUrl: string;
  csrfToken: string;
}

export function authCookieNames(secure = usesSecureCookies()): AuthCookieNames {
  const prefix = secure ? "__Host-" : "";
  return {
    sessionToken: `${prefix}next-auth.session-token`,
    callbackUrl: `${prefix}next-auth.callback-url`,
    csrfToken: `${prefix}next-auth.csrf-token`,
  };
}

/** Every name a callback-url cookie may have been planted under, for clearing. */
export const CALLBACK_COOKIE_NAMES = [
  "next-auth.callback-url",
  "__Secure-next-auth.callback-url",
  "__Host-next-auth.callback-url",
];

/** next-auth's `cookies` option: the names above, HttpOnly, SameSite=Lax, Path=/, Secure over https. */
export function authCookies(secure = usesSecureCookies()): Partial<CookiesOptions> {
  const names = authCookieNames(secure);
  const options = { httpOnly: true, sameSite: "lax" as const, path: "/", secure };
  return {
    sessionToken: { name: names.sessionToken, options },
    callbackUrl: { name: names.callbackUrl, options },
    csrfToken: { name: names.csrfToken, options },
  };
}
