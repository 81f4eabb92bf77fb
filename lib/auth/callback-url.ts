/** Where a person lands when a callback URL is missing or not ours. */
export const DEFAULT_CALLBACK_PATH = "/agents";

/**
 * A callback URL as a same-origin relative path, or null when it is not one:
 * `//evil`, `/\evil`, an absolute URL to another origin, control characters or
 * garbage. An absolute URL on `baseOrigin` is reduced to its path.
 */
export function safeCallbackPath(value: unknown, baseOrigin?: string): string | null {
  if (typeof value !== "string" || value.length === 0 || value.length > 2048) return null;
  // Control characters and backslashes: browsers normalize them into other origins.
  if (/[\u0000-\u001f\u007f\\]/.test(value)) return null;
  let candidate = value;
  if (!value.startsWith("/")) {
    if (!baseOrigin || !URL.canParse(value)) return null;
    const url = new URL(value);
    if (url.origin !== baseOrigin) return null;
    candidate = `${url.pathname}${url.search}${url.hash}`;
  }
  if (candidate.startsWith("//")) return null;
  // Resolved against a throwaway origin, the path must stay on it.
  const probe = "http://callback.invalid";
  if (!URL.canParse(candidate, probe)) return null;
  const resolved = new URL(candidate, probe);
  if (resolved.origin !== probe) return null;
  return `${resolved.pathname}${resolved.search}${resolved.hash}`;
}

/** The callback path to use: the given one when it is safe, the default page otherwise. */
export function callbackPathOrDefault(value: unknown, baseOrigin?: string): string {
  return safeCallbackPath(value, baseOrigin) ?? DEFAULT_CALLBACK_PATH;
}

/** The sign-in page. */
export const SIGN_IN_PATH = "/connexion";

/**
 * Where a signed-out visitor of `requested` (the request's path and query) is
 * sent: the sign-in page, carrying the page that was asked for when it is a
 * same-origin path other than the default, so that signing in returns there
 * (a proposal's link in an e-mail). Next's own `_rsc` marker of a client-side
 * navigation is dropped.
 */
export function signInPathFor(requested: unknown): string {
  const path = safeCallbackPath(requested);
  if (path === null) return SIGN_IN_PATH;
  const url = new URL(path, "http://callback.invalid");
  url.searchParams.delete("_rsc");
  const kept = `${url.pathname}${url.search}`;
  if (kept === DEFAULT_CALLBACK_PATH || kept === "/" || url.pathname.startsWith(SIGN_IN_PATH)) return SIGN_IN_PATH;
  return `${SIGN_IN_PATH}?callbackUrl=${encodeURIComponent(kept)}`;
}
