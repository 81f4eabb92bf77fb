import { env } from "@/lib/env";

// Which browser origins are the console's own. One answer for every door that
// checks an Origin: cookie-authenticated /v1 writes, the MCP endpoint, and the
// host next-auth redirects back to.

const LOOPBACK_HOSTS = new Set(["localhost", "127.0.0.1", "[::1]"]);

/**
 * True when `origin` is the console: the configured console URL (NEXTAUTH_URL),
 * or a loopback name (localhost, 127.0.0.1, [::1]) of the very host and port the
 * request reached (its Host header) — the same server opened on this machine under another
 * loopback name. A page of another site, `null`, garbage, or a non-loopback
 * name that is not the configured one (what a DNS-rebinding page carries) is not.
 */
export function isConsoleOrigin(origin: string | null | undefined, requestHost: string | null): boolean {
  if (!origin || !URL.canParse(origin)) return false;
  const url = new URL(origin);
  if (url.protocol !== "http:" && url.protocol !== "https:") return false;
  if (env.consoleOrigin !== null && url.origin === env.consoleOrigin) return true;
  return LOOPBACK_HOSTS.has(url.hostname) && url.host === requestHost;
}

/**
 * The host the person typed: the Host header (a request's URL names the address
 * the server listens on, whatever name the browser used), else the URL's.
 */
export function requestHost(request: Request): string {
  return request.headers.get("host") ?? new URL(request.url).host;
}

/**
 * The origin the browser is on when that origin is the console's (so a redirect
 * keeps the name the person uses: 127.0.0.1 stays 127.0.0.1), else null.
 */
export function requestConsoleOrigin(request: Request): string | null {
  const host = requestHost(request);
  const origin = `${new URL(request.url).protocol}//${host}`;
  if (!URL.canParse(origin)) return null;
  const normalized = new URL(origin).origin;
  return isConsoleOrigin(normalized, host) ? normalized : null;
}
