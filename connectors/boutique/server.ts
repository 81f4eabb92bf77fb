import http, { type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { Server } from "@modelcontextprotocol/sdk/server/index.js";
import { StreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/streamableHttp.js";
import { CallToolRequestSchema, ErrorCode, ListToolsRequestSchema, McpError } from "@modelcontextprotocol/sdk/types.js";
import { createLocalJWKSet, jwtVerify } from "jose";
import type Provider from "oidc-provider";
import { BodyTooLarge, jsonRpcError, readBody, sendJson } from "../acme-crm/http";
import { accountById, accountByEmail, DEMO_ACCOUNTS, DEMO_PASSWORD, type DemoAccount } from "./accounts";
import { handleControl, newCounters, type BoutiqueControls, type Counters } from "./controls";
import {
  ArtefactStore,
  createProvider,
  handleInteraction,
  newSigningKeys,
  ORDERS_SCOPE,
  type PreRegisteredClient,
} from "./oauth";
import { ClientMetadataDocuments, type FetchLike } from "./client-metadata";
import { ShopStore } from "./store";
import { dispatch, listTools } from "./tools";

// Boutique: a demo shop whose MCP server (Streamable HTTP, /mcp) accepts only
// access tokens its own authorization server (oidc-provider, same origin)
// issued for it. Each request acts for the account named by the token.

export interface BoutiqueOptions {
  /** 0 (the default) = a free port. */
  port?: number;
  /** Default 127.0.0.1. */
  host?: string;
  /** Public base URL when it is not http://HOST:PORT (a proxy in front); the issuer and /mcp derive from it. */
  issuerUrl?: string;
  /** Lifetime of access tokens; default 900 (15 min). Changeable later through the controls. */
  accessTokenTtlSeconds?: number;
  /** Enables the test controls: the returned `controls` object and /__control/* over HTTP. Off by default. */
  controls?: boolean;
  /** Pre-registered OAuth clients (besides Dynamic Client Registration, always open). */
  clients?: PreRegisteredClient[];
  /** How Client ID Metadata Documents are fetched; default the global fetch (tests put a local document server behind it). */
  clientMetadataFetch?: FetchLike;
  /** SQLite file for orders and idempotency records; default in memory. */
  dbPath?: string;
}

export interface BoutiqueServer {
  /** Base URL, http://HOST:PORT (or issuerUrl). */
  url: string;
  /** The MCP endpoint and OAuth resource: `${url}/mcp`. */
  mcpUrl: string;
  /** The authorization server's issuer. */
  issuer: string;
  /** Demo accounts with their password. */
  accounts: Array<{ email: string; name: string; password: string }>;
  /** null unless started with `controls: true`. */
  controls: BoutiqueControls | null;
  close(): Promise<void>;
}

const MAX_BODY_BYTES = 1024 * 1024;
const INSTRUCTIONS =
  "Boutique: the signed-in customer's orders. Read tools: list_orders, get_order, preview_cancel_order, get_operation_status. " +
  "Cancelling is preview_cancel_order then commit_cancel_order with the previewed version and an idempotency_key; after a timeout ask get_operation_status.";

const LOOPBACK = new Set(["127.0.0.1", "localhost", "::1", "[::1]"]);

function hostHeaderName(host: string | undefined): string | null {
  if (!host) return null;
  const m = /^(\[[^\]]+\]|[^:]+)(?::\d+)?$/.exec(host.trim().toLowerCase());
  return m ? m[1] : null;
}

type Authenticated =
  { ok: true; account: DemoAccount } | { ok: false; status: 401 | 403; error: string; description: string };

export async function startBoutique(opts: BoutiqueOptions = {}): Promise<BoutiqueServer> {
  const host = opts.host ?? "127.0.0.1";
  let ttlSeconds = opts.accessTokenTtlSeconds ?? 900;
  if (!Number.isInteger(ttlSeconds) || ttlSeconds < 1)
    throw new Error(`accessTokenTtlSeconds must be a positive integer`);
  const counters: Counters = newCounters();
  const store = new ShopStore(opts.dbPath);
  const artefacts = new ArtefactStore(new ClientMetadataDocuments(opts.clientMetadataFetch));
  const keys = await newSigningKeys();
  const jwks = createLocalJWKSet({ keys: [keys.publicJwk] });

  // The provider needs its issuer, which needs the port: listen first, then build it.
  let handler: (req: IncomingMessage, res: ServerResponse) => Promise<void> = async (_req, res) => {
    sendJson(res, 503, { error: "starting" });
  };
  const server = http.createServer((req, res) => {
    handler(req, res).catch((err) => {
      console.error("[boutique] request failed:", err);
      if (!res.headersSent) sendJson(res, 500, { error: "internal error" });
      else res.destroy();
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(opts.port ?? 0, host, () => {
      server.off("error", reject);
      resolve();
    });
  });
  const { port } = server.address() as AddressInfo;
  const urlHost = host.includes(":") ? `[${host}]` : host;
  const base = (opts.issuerUrl ?? `http://${urlHost}:${port}`).replace(/\/+$/, "");
  const issuer = base;
  const mcpUrl = `${base}/mcp`;
  const otherResourceUrl = `${base}/reports`;
  const resourceMetadataUrl = `${base}/.well-known/oauth-protected-resource/mcp`;

  const provider: Provider = createProvider(
    {
      issuer,
      mcpUrl,
      otherResourceUrl,
      accessTokenTtlSeconds: () => ttlSeconds,
      clients: opts.clients ?? [],
      onRefresh: (accountId) => {
        counters.refreshes.total += 1;
        const email = accountId ? accountById(accountId)?.email : undefined;
        if (email) counters.refreshes.by_account[email] = (counters.refreshes.by_account[email] ?? 0) + 1;
      },
    },
    artefacts,
    keys,
  );
  // Behind a proxy (a public issuer URL), endpoint URLs follow X-Forwarded-Proto/Host like the issuer does.
  if (opts.issuerUrl) provider.proxy = true;
  const oidc = provider.callback();

  const controls: BoutiqueControls | null = opts.controls
    ? {
        revokeAccount(email) {
          const account = accountByEmail(email);
          if (!account) throw new Error(`unknown Boutique account ${email}`);
          return { revoked_grants: artefacts.revokeAccount(account.id) };
        },
        setAccessTokenTtl(seconds) {
          if (!Number.isInteger(seconds) || seconds < 1) throw new Error("the TTL must be a positive integer");
          ttlSeconds = seconds;
        },
        accessTokenTtl: () => ttlSeconds,
        counters: () => structuredClone(counters),
        resetCounters() {
          Object.assign(counters, newCounters());
        },
        refreshTokensOf(email) {
          const account = accountByEmail(email);
          return account ? artefacts.refreshTokensOf(account.id) : 0;
        },
        orders: () => store.allOrders(),
      }
    : null;

  /** RFC 6750 / MCP authorization: who the bearer token speaks for, or why it is refused. */
  async function authenticate(req: IncomingMessage): Promise<Authenticated> {
    const m = /^Bearer ([A-Za-z0-9\-._~+/]+=*)$/.exec(req.headers.authorization ?? "");
    if (!m) return { ok: false, status: 401, error: "", description: "" };
    try {
      const { payload } = await jwtVerify(m[1], jwks, {
        issuer,
        audience: mcpUrl,
        typ: "at+jwt",
        algorithms: ["RS256"],
        requiredClaims: ["sub", "exp", "iat", "client_id"],
      });
      const account = accountById(String(payload.sub));
      if (!account) return { ok: false, status: 401, error: "invalid_token", description: "unknown account" };
      // A token outlives nothing its grant: revoked (or a refresh token replayed) → refused now, not at expiry.
      const grant = typeof payload.gid === "string" ? await provider.Grant.find(payload.gid) : undefined;
      if (!grant || grant.accountId !== account.id)
        return { ok: false, status: 401, error: "invalid_token", description: "the grant was revoked" };
      const scopes = new Set(String(payload.scope ?? "").split(" "));
      if (!scopes.has(ORDERS_SCOPE))
        return {
          ok: false,
          status: 403,
          error: "insufficient_scope",
          description: `the token lacks the ${ORDERS_SCOPE} scope`,
        };
      return { ok: true, account };
    } catch {
      return {
        ok: false,
        status: 401,
        error: "invalid_token",
        description: "the access token is invalid, expired or for another resource",
      };
    }
  }

  function challenge(res: ServerResponse, refusal: Extract<Authenticated, { ok: false }>): void {
    counters.refused += 1;
    const params = [`resource_metadata="${resourceMetadataUrl}"`];
    if (refusal.error) params.push(`error="${refusal.error}"`, `error_description="${refusal.description}"`);
    if (refusal.status === 403 || !refusal.error) params.push(`scope="${ORDERS_SCOPE}"`);
    sendJson(res, refusal.status, jsonRpcError(-32001, refusal.status === 403 ? "Forbidden" : "Unauthorized"), {
      "www-authenticate": `Bearer ${params.join(", ")}`,
    });
  }

  function buildMcpServer(account: DemoAccount): Server {
    const mcp = new Server(
      { name: "boutique", title: "Boutique", version: "1.0.0" },
      { capabilities: { tools: { listChanged: false } }, instructions: INSTRUCTIONS },
    );
    mcp.setRequestHandler(ListToolsRequestSchema, async () => ({ tools: listTools() }));
    mcp.setRequestHandler(CallToolRequestSchema, async (request) => {
      const { name, arguments: args } = request.params;
      const outcome = dispatch({ store, account }, name, args ?? {});
      if (!outcome) throw new McpError(ErrorCode.InvalidParams, `Unknown tool: ${name}`);
      const byTool = (counters.calls[name] ??= {});
      byTool[account.email] = (byTool[account.email] ?? 0) + 1;
      if (outcome.wrote && args && typeof args.idempotency_key === "string") {
        counters.commits[args.idempotency_key] = (counters.commits[args.idempotency_key] ?? 0) + 1;
      }
      return outcome.result;
    });
    return mcp;
  }

  async function handleMcp(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const auth = await authenticate(req);
    if (!auth.ok) return challenge(res, auth);
    if (req.method !== "POST") {
      // Stateless server: no GET event stream, no session to DELETE.
      return sendJson(res, 405, jsonRpcError(-32000, "Method not allowed."), { allow: "POST" });
    }
    let body: unknown;
    try {
      body = JSON.parse(await readBody(req, MAX_BODY_BYTES));
    } catch (e) {
      if (e instanceof BodyTooLarge) return sendJson(res, 413, jsonRpcError(-32600, "Request body too large"));
      return sendJson(res, 400, jsonRpcError(-32700, "Parse error"));
    }
    const mcp = buildMcpServer(auth.account);
    const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: true });
    res.on("close", () => {
      void transport.close();
      void mcp.close();
    });
    await mcp.connect(transport);
    await transport.handleRequest(req, res, body);
  }

  const protectedResourceMetadata = {
    resource: mcpUrl,
    authorization_servers: [issuer],
    scopes_supported: [ORDERS_SCOPE],
    bearer_methods_supported: ["header"],
    resource_name: "Boutique",
  };

  // Bound to loopback: refuse other Host names (DNS rebinding from a browser page), except the public one.
  const allowedHosts = new Set([...LOOPBACK, new URL(base).hostname.toLowerCase()]);
  const loopbackOnly = LOOPBACK.has(host);

  handler = async (req, res) => {
    if (loopbackOnly && !allowedHosts.has(hostHeaderName(req.headers.host) ?? "")) {
      return sendJson(res, 403, { error: "forbidden host" });
    }
    const url = new URL(req.url ?? "/", "http://localhost");
    const { pathname } = url;
    if (pathname === "/mcp") return handleMcp(req, res);
    if (
      pathname === "/.well-known/oauth-protected-resource/mcp" ||
      pathname === "/.well-known/oauth-protected-resource"
    ) {
      if (req.method !== "GET") return sendJson(res, 405, { error: "method not allowed" }, { allow: "GET" });
      return sendJson(res, 200, protectedResourceMetadata, { "access-control-allow-origin": "*" });
    }
    if (pathname === "/.well-known/oauth-authorization-server") {
      // RFC 8414: the same document as OpenID discovery (one issuer, no path).
      req.url = `/.well-known/openid-configuration${url.search}`;
      return oidc(req, res);
    }
    if (pathname === "/healthz" && req.method === "GET") return sendJson(res, 200, { ok: true });
    if (pathname.startsWith("/__control/")) {
      if (!controls) return sendJson(res, 404, { error: "not found" });
      return handleControl(req, res, pathname, controls);
    }
    if (await handleInteraction(provider, req, res, pathname)) return;
    return oidc(req, res);
  };

  return {
    url: base,
    mcpUrl,
    issuer,
    accounts: DEMO_ACCOUNTS.map((a) => ({ email: a.email, name: a.name, password: DEMO_PASSWORD })),
    controls,
    async close() {
      await new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      });
      store.close();
    },
  };
}
