import { createHash } from "node:crypto";
import http from "node:http";
import https from "node:https";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport, StreamableHTTPError } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { pinnedFetch, type PinnedFetch } from "@/lib/net/pinned-fetch";
import { withTraceHeaders } from "@/lib/observability/tracing";
import type { UrlPolicy } from "@/lib/net/ssrf";

// Open MCP sessions with upstream servers, kept between tool calls. Opening one
// costs `initialize`, the initialized notification and a refused GET stream: three
// round trips before the call itself, each on a new connection. A pooled session
// answers a call in one round trip on a kept-alive connection.
//
// What a session may be reused for is its scope: one organization's connector
// (and one member, when a credential is a member's own), never anything wider.
// Within a scope the session also belongs to its credential: the URL, the token
// and the organization's private-origin grants. A call that comes with another
// credential for the same scope (a token changed, the server moved, the grants
// changed) closes the old session first. A deactivated or deleted connector's
// sessions are dropped by `dropMcpSessions`; an instance that did not see the
// change never calls with them again (the dispatcher reads the connector on each
// call and refuses an inactive one) and closes them when they idle out.
//
// Bounded: one session per scope, multiplexing concurrent calls (JSON-RPC ids);
// at most MAX_SOCKETS connections each; at most MAX_SESSIONS sessions, the least
// recently used one closed to make room; a session idle for IDLE_MS is closed.

export interface McpSessionScope {
  organizationId: string;
  serverId: number | string;
  /** The member whose own credential this is; null or absent for the organization's connector token. */
  memberId?: string | null;
}

export interface McpSessionTarget {
  url: string;
  token: string | null;
  net: UrlPolicy;
}

const MAX_SESSIONS = 256;
const MAX_SOCKETS = 16;
const IDLE_MS = 60_000;
const CONNECT_TIMEOUT_MS = 10_000;

interface PooledSession {
  credential: string;
  client: Promise<Client>;
  agent: http.Agent;
  lastUsed: number;
  /** Calls in flight: a session is never closed under one for being idle. */
  busy: number;
}

const sessions = new Map<string, PooledSession>();
let reaper: NodeJS.Timeout | null = null;

function scopeKey(scope: McpSessionScope): string {
  return `${scope.organizationId}\n${scope.serverId}\n${scope.memberId ?? ""}`;
}

function credentialOf(target: McpSessionTarget): string {
  return createHash("sha256")
    .update(`${target.url}\n${target.token ?? ""}\n${[...(target.net.privateOrigins ?? [])].sort().join(",")}`)
    .digest("base64url");
}

/** The transport's fetch, carrying the active trace's headers (nothing when tracing is off). */
function withTraceFetch(fetch: PinnedFetch): PinnedFetch {
  return (url, init) => fetch(url, withTraceHeaders(init));
}

/** The transport's fetch, never carrying the token to an origin other than the server's (a redirect, an announced endpoint). */
export function tokenOnlyFor(origin: string, fetch: PinnedFetch): PinnedFetch {
  return (url, init = {}) => {
    if (new URL(String(url)).origin === origin) return fetch(url, init);
    const headers = new Headers(init.headers);
    headers.delete("authorization");
    return fetch(url, { ...init, headers });
  };
}

/** A Streamable HTTP transport to `target`, SSRF-pinned, whose token goes only to the server's own origin. */
export function pinnedTransport(target: McpSessionTarget, agent?: http.Agent): StreamableHTTPClientTransport {
  const url = new URL(target.url);
  return new StreamableHTTPClientTransport(url, {
    fetch: withTraceFetch(tokenOnlyFor(url.origin, pinnedFetch(target.net, { agent }))),
    requestInit: target.token ? { headers: { authorization: `Bearer ${target.token}` } } : undefined,
    reconnectionOptions: {
      maxReconnectionDelay: 1000,
      initialReconnectionDelay: 100,
      reconnectionDelayGrowFactor: 2,
      maxRetries: 0,
    },
  });
}

function open(target: McpSessionTarget): PooledSession {
  const Agent = new URL(target.url).protocol === "https:" ? https.Agent : http.Agent;
  const agent = new Agent({ keepAlive: true, maxSockets: MAX_SOCKETS, maxFreeSockets: 4 });
  const client = (async () => {
    const client = new Client({ name: "guichet", version: "0.1.0" });
    // Not the first caller's signal: the session outlives that call, and serves the others waiting on it.
    await client.connect(pinnedTransport(target, agent), { timeout: CONNECT_TIMEOUT_MS });
    return client;
  })();
  return { credential: credentialOf(target), client, agent, lastUsed: Date.now(), busy: 0 };
}

/** Ends a session politely (DELETE when the server gave an id), then its connections. Never throws. */
function close(session: PooledSession): Promise<void> {
  return session.client
    .then(async (client) => {
      const transport = client.transport as StreamableHTTPClientTransport | undefined;
      if (transport?.sessionId) await transport.terminateSession().catch(() => undefined);
      await client.close();
    })
    .catch(() => undefined)
    .finally(() => session.agent.destroy());
}

function remove(key: string, session: PooledSession): void {
  if (sessions.get(key) === session) sessions.delete(key);
  void close(session);
}

function makeRoom(): void {
  if (sessions.size < MAX_SESSIONS) return;
  let oldest: [string, PooledSession] | null = null;
  for (const entry of sessions) if (!oldest || entry[1].lastUsed < oldest[1].lastUsed) oldest = entry;
  if (oldest) remove(oldest[0], oldest[1]);
}

function startReaper(): void {
  if (reaper) return;
  reaper = setInterval(() => {
    const now = Date.now();
    for (const [key, session] of sessions) if (!session.busy && now - session.lastUsed > IDLE_MS) remove(key, session);
    if (!sessions.size && reaper) {
      clearInterval(reaper);
      reaper = null;
    }
  }, IDLE_MS / 4);
  reaper.unref();
}

function acquire(scope: McpSessionScope, target: McpSessionTarget): [string, PooledSession] {
  const key = scopeKey(scope);
  const existing = sessions.get(key);
  if (existing && existing.credential === credentialOf(target)) return [key, existing];
  // Another credential for this scope: the old session is closed, never reused.
  if (existing) remove(key, existing);
  makeRoom();
  const session = open(target);
  sessions.set(key, session);
  // A session that failed to open is not kept: the next call tries again.
  session.client.catch(() => remove(key, session));
  startReaper();
  return [key, session];
}

/** The server forgot the session (HTTP 404 to a request carrying its id): MCP says to initialize again. */
function expired(error: unknown): boolean {
  return error instanceof StreamableHTTPError && error.code === 404;
}

/**
 * Runs `work` on the scope's pooled session, opening one if needed. A session the
 * server expired is replaced and `work` tried once more on the new one; any other
 * failure leaves the session to `drop` (the caller decides what a failure means).
 */
export async function withMcpSession<T>(
  scope: McpSessionScope,
  target: McpSessionTarget,
  signal: AbortSignal,
  work: (client: Client) => Promise<T>,
): Promise<T> {
  for (let attempt = 0; ; attempt++) {
    const [key, session] = acquire(scope, target);
    session.busy++;
    session.lastUsed = Date.now();
    try {
      const client = await untilAborted(session.client, signal);
      const hadId = Boolean((client.transport as StreamableHTTPClientTransport | undefined)?.sessionId);
      try {
        return await work(client);
      } catch (error) {
        if (attempt === 0 && hadId && expired(error) && !signal.aborted) {
          if (sessions.get(key) === session) sessions.delete(key);
          session.agent.destroy();
          void client.close().catch(() => undefined);
          continue;
        }
        throw error;
      }
    } finally {
      session.busy--;
      session.lastUsed = Date.now();
    }
  }
}

/** Closes the scope's session (a transport failure, where the next call should start afresh). */
export function dropMcpSession(scope: McpSessionScope): void {
  const key = scopeKey(scope);
  const session = sessions.get(key);
  if (session) remove(key, session);
}

/**
 * Closes every session of one connector of an organization (deactivated, moved, given a new token, deleted),
 * or only one member's (their connection changed).
 */
export function dropMcpSessions(organizationId: string, serverId: number | string, memberId?: string): void {
  if (memberId !== undefined) return dropMcpSession({ organizationId, serverId, memberId });
  const prefix = `${organizationId}\n${serverId}\n`;
  for (const [key, session] of sessions) if (key.startsWith(prefix)) remove(key, session);
}

/** Closes every pooled session (tests, benchmarks, shutdown). */
export async function closeMcpSessions(): Promise<void> {
  const all = [...sessions.values()];
  sessions.clear();
  await Promise.all(all.map(close));
}

/** How many sessions are open (tests). */
export function openMcpSessionCount(): number {
  return sessions.size;
}

/** `promise`, or the abort's reason as soon as `signal` fires (a cancelled call stops waiting for a session). */
function untilAborted<T>(promise: Promise<T>, signal: AbortSignal): Promise<T> {
  if (signal.aborted) return Promise.reject(signal.reason);
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(signal.reason);
    signal.addEventListener("abort", onAbort, { once: true });
    promise.then(resolve, reject).finally(() => signal.removeEventListener("abort", onAbort));
  });
}
