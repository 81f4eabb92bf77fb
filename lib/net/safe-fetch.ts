import http from "node:http";
import https from "node:https";
import type { LookupFunction } from "node:net";
import type { Readable } from "node:stream";
import zlib from "node:zlib";
import { assertPublicUrl, UrlNotAllowedError, type ResolvedAddress, type UrlPolicy } from "./ssrf";

// An outbound GET that cannot be steered into the internal network: every hop
// of a redirect chain is re-checked, and the socket connects only to the
// addresses that were checked (a custom `lookup` hands them back verbatim), so a
// DNS answer that changes between check and connect (rebinding) has no effect.
// node:http is used instead of fetch because Node 20 exposes no public undici
// Agent to pin the lookup with.

export interface SafeFetchOptions extends UrlPolicy {
  /** Decoded body bytes kept; the download stops past this and `truncated` is set. */
  maxBytes?: number;
  /** Deadline for the whole exchange, redirects and body included. */
  timeoutMs?: number;
  maxRedirects?: number;
  signal?: AbortSignal;
  headers?: Record<string, string>;
}

export interface SafeFetchResponse {
  status: number;
  /** The final URL, after redirects. */
  url: string;
  headers: Record<string, string>;
  contentType: string | null;
  body: Buffer;
  truncated: boolean;
}

export type SafeFetchErrorKind = "timeout" | "aborted" | "too_many_redirects" | "network";

export class SafeFetchError extends Error {
  readonly kind: SafeFetchErrorKind;
  constructor(kind: SafeFetchErrorKind, message: string) {
    super(message);
    this.name = "SafeFetchError";
    this.kind = kind;
  }
}

const REDIRECT_STATUSES = new Set([301, 302, 303, 307, 308]);
// Headers that must not follow a redirect to another origin.
const ORIGIN_BOUND_HEADERS = ["authorization", "cookie", "proxy-authorization"];

/** GET a URL under the SSRF policy; throws UrlNotAllowedError or SafeFetchError. */
export async function safeFetch(input: string | URL, options: SafeFetchOptions = {}): Promise<SafeFetchResponse> {
  const { maxBytes = 5_000_000, timeoutMs = 10_000, maxRedirects = 5 } = options;
  const deadline = new AbortController();
  const timer = setTimeout(
    () => deadline.abort(new SafeFetchError("timeout", `Timed out after ${timeoutMs} ms`)),
    timeoutMs,
  );
  const signal = options.signal ? AbortSignal.any([options.signal, deadline.signal]) : deadline.signal;
  let headers: Record<string, string> = {
    "user-agent": "Guichet/0.1",
    "accept-encoding": "gzip, deflate, br",
    ...lowerKeys(options.headers),
  };

  try {
    let current = String(input);
    for (let hop = 0; ; hop++) {
      const checked = await abortable(assertPublicUrl(current, options), signal);
      const res = await request(checked.url, checked.addresses, headers, signal);
      const location = res.headers.location;
      if (REDIRECT_STATUSES.has(res.statusCode ?? 0) && location) {
        res.destroy();
        if (hop >= maxRedirects) throw new SafeFetchError("too_many_redirects", `More than ${maxRedirects} redirects`);
        const next = new URL(location, checked.url);
        if (next.origin !== checked.url.origin) headers = withoutKeys(headers, ORIGIN_BOUND_HEADERS);
        current = next.toString();
        continue;
      }
      const { body, truncated } = await readCapped(decoded(res), maxBytes, signal).finally(() => res.destroy());
      return {
        status: res.statusCode ?? 0,
        url: checked.url.toString(),
        headers: flattenHeaders(res.headers),
        contentType: res.headers["content-type"] ?? null,
        body,
        truncated,
      };
    }
  } catch (err) {
    throw normalizeError(err, options.signal, deadline.signal);
  } finally {
    clearTimeout(timer);
  }
}

function request(
  url: URL,
  addresses: ResolvedAddress[],
  headers: Record<string, string>,
  signal: AbortSignal,
): Promise<http.IncomingMessage> {
  const pinnedLookup: LookupFunction = (_hostname, opts, callback) => {
    if (opts.all) callback(null, addresses);
    else callback(null, addresses[0].address, addresses[0].family);
  };
  const client = url.protocol === "https:" ? https : http;
  return new Promise((resolve, reject) => {
    const req = client.request(url, { method: "GET", headers, lookup: pinnedLookup, agent: false, signal }, resolve);
    req.on("error", reject);
    req.end();
  });
}

function decoded(res: http.IncomingMessage): Readable {
  const encoding = (res.headers["content-encoding"] ?? "").trim().toLowerCase();
  const decoder =
    encoding === "gzip" || encoding === "x-gzip"
      ? zlib.createGunzip()
      : encoding === "deflate"
        ? zlib.createInflate()
        : encoding === "br"
          ? zlib.createBrotliDecompress()
          : null;
  if (!decoder) return res;
  res.on("error", (err) => decoder.destroy(err));
  return res.pipe(decoder);
}

// The cap applies to decoded bytes, so a compression bomb is cut off too.
async function readCapped(
  stream: Readable,
  maxBytes: number,
  signal: AbortSignal,
): Promise<{ body: Buffer; truncated: boolean }> {
  const onAbort = () => stream.destroy(signal.reason);
  signal.addEventListener("abort", onAbort, { once: true });
  const chunks: Buffer[] = [];
  let size = 0;
  try {
    for await (const chunk of stream) {
      const buf = chunk as Buffer;
      if (size + buf.length > maxBytes) {
        chunks.push(buf.subarray(0, maxBytes - size));
        stream.destroy();
        return { body: Buffer.concat(chunks), truncated: true };
      }
      chunks.push(buf);
      size += buf.length;
    }
    return { body: Buffer.concat(chunks), truncated: false };
  } finally {
    signal.removeEventListener("abort", onAbort);
  }
}

// dns.lookup takes no signal; race it so the deadline also covers resolution.
function abortable<T>(promise: Promise<T>, signal: AbortSignal): Promise<T> {
  if (signal.aborted) return Promise.reject(signal.reason);
  return new Promise((resolve, reject) => {
    const onAbort = () => reject(signal.reason);
    signal.addEventListener("abort", onAbort, { once: true });
    promise.then(resolve, reject).finally(() => signal.removeEventListener("abort", onAbort));
  });
}

function normalizeError(err: unknown, callerSignal: AbortSignal | undefined, deadline: AbortSignal): unknown {
  if (callerSignal?.aborted) return new SafeFetchError("aborted", "The request was cancelled");
  if (deadline.aborted) return deadline.reason;
  if (err instanceof UrlNotAllowedError || err instanceof SafeFetchError) return err;
  return new SafeFetchError("network", err instanceof Error ? err.message : String(err));
}

function flattenHeaders(headers: http.IncomingHttpHeaders): Record<string, string> {
  const flat: Record<string, string> = {};
  for (const [key, value] of Object.entries(headers)) {
    if (value !== undefined) flat[key] = Array.isArray(value) ? value.join(", ") : value;
  }
  return flat;
}

function lowerKeys(headers: Record<string, string> = {}): Record<string, string> {
  return Object.fromEntries(Object.entries(headers).map(([k, v]) => [k.toLowerCase(), v]));
}

function withoutKeys(headers: Record<string, string>, keys: string[]): Record<string, string> {
  return Object.fromEntries(Object.entries(headers).filter(([k]) => !keys.includes(k)));
}
