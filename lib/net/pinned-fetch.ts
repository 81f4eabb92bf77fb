import http from "node:http";
import https from "node:https";
import type { LookupFunction } from "node:net";
import { Readable } from "node:stream";
import { assertPublicUrl, type UrlPolicy } from "./ssrf";

// A fetch-compatible function for protocol clients (the MCP SDK's transport)
// that must not be steered into the internal network: each request's URL is
// checked under the SSRF policy and the socket connects only to the addresses
// that were checked, so a DNS answer that changes between check and connect
// has no effect. Redirects are handed back, never followed here: a client that
// follows one calls this function again and the new URL is checked too.
// Streaming bodies (Server-Sent Events) pass through untouched.

export type PinnedFetch = (url: string | URL, init?: RequestInit) => Promise<Response>;

/**
 * `agent`: a keep-alive agent owned by the caller (one per upstream session, lib/mcp/session-pool.ts), so
 * that consecutive requests reuse a connection. Its sockets were opened to checked addresses; every request
 * is still checked, and a new socket connects only to the addresses checked for that request.
 */
export function pinnedFetch(policy: UrlPolicy, options: { agent?: http.Agent | https.Agent } = {}): PinnedFetch {
  return async (input, init = {}) => {
    const { url, addresses } = await assertPublicUrl(String(input), policy);
    const lookup: LookupFunction = (_hostname, opts, callback) => {
      if (opts.all) callback(null, addresses);
      else callback(null, addresses[0].address, addresses[0].family);
    };
    const headers = Object.fromEntries(new Headers(init.headers).entries());
    const body = await requestBody(init.body);
    if (body !== undefined) headers["content-length"] = String(body.length);
    const client = url.protocol === "https:" ? https : http;
    const res = await new Promise<http.IncomingMessage>((resolve, reject) => {
      const req = client.request(
        url,
        {
          method: init.method ?? "GET",
          headers,
          lookup,
          agent: options.agent ?? false,
          signal: init.signal ?? undefined,
        },
        resolve,
      );
      req.on("error", reject);
      req.end(body);
    });
    const responseHeaders = new Headers();
    for (const [key, value] of Object.entries(res.headers)) {
      if (value === undefined) continue;
      for (const v of Array.isArray(value) ? value : [value]) responseHeaders.append(key, v);
    }
    const status = res.statusCode ?? 502;
    const nullBody = status === 204 || status === 304 || init.method === "HEAD";
    if (nullBody) res.resume();
    return new Response(nullBody ? null : (Readable.toWeb(res) as ReadableStream<Uint8Array>), {
      status,
      headers: responseHeaders,
    });
  };
}

async function requestBody(body: RequestInit["body"]): Promise<Buffer | undefined> {
  if (body === undefined || body === null) return undefined;
  if (typeof body === "string") return Buffer.from(body);
  return Buffer.from(await new Response(body).arrayBuffer());
}
