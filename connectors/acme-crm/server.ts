import { timingSafeEqual } from "node:crypto";
import http, { type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { Server } from "@modelcontextprotocol/sdk/server/index.js";
import { StreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/streamableHttp.js";
import { CallToolRequestSchema, ErrorCode, ListToolsRequestSchema, McpError } from "@modelcontextprotocol/sdk/types.js";
import { handleControl, malform, noFaults, type Faults } from "./faults";
import { BodyTooLarge, jsonRpcError, readBody, sendJson } from "./http";
import { SessionTable } from "./sessions";
import { Store } from "./store";
import { dispatch, listTools, WRITE_TOOL_NAMES } from "./tools";

// CRM Acme: a real MCP server over Streamable HTTP (stateless by default, JSON responses).
// It stands for a customer's own system and imports nothing from Guichet.

export interface AcmeCrmOptions {
  /** 0 = random free port. Default 4010. */
  port?: number;
  /** Default 127.0.0.1. */
  host?: string;
  dbPath: string;
  /** When set, every /mcp request must carry `Authorization: Bearer <token>`. */
  token?: string;
  /** Enables /__control/* (faults, touch, state). Off by default. */
  enableControl?: boolean;
  /** Stateful: each initialize opens a session (Mcp-Session-Id) that /__control/sessions/expire can drop. Default stateless. */
  sessions?: boolean;
}

export interface AcmeCrmServer {
  /** http://HOST:PORT/mcp */
  url: string;
  /** http://HOST:PORT */
  baseUrl: string;
  close(): Promise<void>;
}

const MAX_BODY_BYTES = 1024 * 1024;
const INSTRUCTIONS =
  "CRM Acme. Read tools: get_customer, list_orders, preview_address_change, get_operation_status, get_job_status. " +
  "Write tools take an idempotency_key and store it with their result; after a timeout ask get_operation_status. " +
  "suspend_all_invoice_delivery answers at once with a running job: poll get_job_status, or cancel_job.";

function bearerMatches(header: string | undefined, token: string): boolean {
  const m = /^Bearer (.+)$/.exec(header ?? "");
  if (!m) return false;
  const a = Buffer.from(m[1]);
  const b = Buffer.from(token);
  return a.length === b.length && timingSafeEqual(a, b);
}

const LOOPBACK = new Set(["127.0.0.1", "localhost", "::1", "[::1]"]);

/** Hostname of a Host header, without the port ("[::1]:4010" → "[::1]"). */
function hostHeaderName(host: string | undefined): string | null {
  if (!host) return null;
  const m = /^(\[[^\]]+\]|[^:]+)(?::\d+)?$/.exec(host.trim().toLowerCase());
  return m ? m[1] : null;
}

function callsTool(body: unknown, name: string): boolean {
  const msgs = Array.isArray(body) ? body : [body];
  return msgs.some(
    (m) =>
      m &&
      typeof m === "object" &&
      m.method === "tools/call" &&
      (m as { params?: { name?: unknown } }).params?.name === name,
  );
}

export async function startAcmeCrm(opts: AcmeCrmOptions): Promise<AcmeCrmServer> {
  const store = new Store(opts.dbPath);
  let faults: Faults = noFaults();
  let closed = false;
  const wakeups = new Set<() => void>();

  /** A delay that close() cuts short, so a slow call never outlives the server. */
  const sleep = (ms: number) =>
    new Promise<void>((resolve) => {
      const done = () => {
        clearTimeout(timer);
        wakeups.delete(done);
        resolve();
      };
      const timer = setTimeout(done, ms);
      wakeups.add(done);
    });

  // Writes held by the `hold_writes` fault: released when it is switched off or the server closes.
  const held = new Set<() => void>();
  const holdWrite = () =>
    new Promise<void>((resolve) => {
      const release = () => {
        held.delete(release);
        wakeups.delete(release);
        resolve();
      };
      held.add(release);
      wakeups.add(release);
    });

  function buildMcpServer(current: { res: ServerResponse | null }): Server {
    const mcp = new Server(
      { name: "acme-crm", title: "CRM Acme", version: "1.0.0" },
      { capabilities: { tools: { listChanged: false } }, instructions: INSTRUCTIONS },
    );
    mcp.setRequestHandler(ListToolsRequestSchema, async () => ({ tools: listTools(faults.tool_schema_variant) }));
    mcp.setRequestHandler(CallToolRequestSchema, async (request) => {
      if (faults.slow_ms > 0) await sleep(faults.slow_ms);
      if (faults.hold_writes && WRITE_TOOL_NAMES.has(request.params.name)) await holdWrite();
      if (closed) throw new McpError(ErrorCode.InternalError, "CRM Acme is shutting down");
      const { name, arguments: args } = request.params;
      const outcome = dispatch(store, faults.tool_schema_variant, name, args ?? {});
      if (!outcome) throw new McpError(ErrorCode.InvalidParams, `Unknown tool: ${name}`);
      if (outcome.committed && faults.cut_after_commit) {
        // The transaction is committed; the caller never hears about it.
        current.res?.socket?.destroy();
      }
      if (!outcome.result.isError && faults.malformed_success) return malform(outcome.result);
      return outcome.result;
    });
    return mcp;
  }

  const table = new SessionTable(buildMcpServer);

  async function handleMcp(req: IncomingMessage, res: ServerResponse): Promise<void> {
    if (opts.token && !bearerMatches(req.headers.authorization, opts.token)) {
      return sendJson(res, 401, jsonRpcError(-32001, "Unauthorized"), {
        "www-authenticate": 'Bearer realm="acme-crm"',
      });
    }
    if (opts.sessions && req.method !== "POST") return table.handle(req, res, undefined);
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
    if (faults.status_down && callsTool(body, "get_operation_status")) {
      return sendJson(res, 503, { error: "operation status service unavailable" }, { "retry-after": "1" });
    }
    table.count(body);
    if (opts.sessions) return table.handle(req, res, body);
    const mcp = buildMcpServer({ res });
    const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: true });
    res.on("close", () => {
      void transport.close();
      void mcp.close();
    });
    await mcp.connect(transport);
    await transport.handleRequest(req, res, body);
  }

  // Bound to loopback: refuse other Host names (DNS rebinding from a browser page).
  const loopbackOnly = LOOPBACK.has(opts.host ?? "127.0.0.1");

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    res.on("error", () => {}); // writes after a deliberate socket cut
    if (loopbackOnly && !LOOPBACK.has(hostHeaderName(req.headers.host) ?? "")) {
      return sendJson(res, 403, { error: "forbidden host" });
    }
    const { pathname } = new URL(req.url ?? "/", "http://localhost");
    if (pathname === "/mcp") return handleMcp(req, res);
    if (pathname === "/healthz" && req.method === "GET") return sendJson(res, 200, { ok: true });
    if (pathname.startsWith("/__control/") && opts.enableControl) {
      return handleControl(req, res, pathname, {
        store,
        getFaults: () => ({ ...faults }),
        setFaults: (f) => {
          faults = f;
          store.holdJobs = f.hold_jobs;
          if (!f.hold_writes) for (const release of [...held]) release();
        },
        heldWrites: () => held.size,
        sessions: table,
      });
    }
    return sendJson(res, 404, { error: "not found" });
  }

  const server = http.createServer((req, res) => {
    handle(req, res).catch((err) => {
      console.error("[acme-crm] request failed:", err);
      if (!res.headersSent) sendJson(res, 500, { error: "internal error" });
      else res.destroy();
    });
  });

  const host = opts.host ?? "127.0.0.1";
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(opts.port ?? 4010, host, () => {
      server.off("error", reject);
      resolve();
    });
  });
  const { port } = server.address() as AddressInfo;
  const urlHost = host.includes(":") ? `[${host}]` : host;
  const baseUrl = `http://${urlHost}:${port}`;

  return {
    url: `${baseUrl}/mcp`,
    baseUrl,
    async close() {
      if (closed) return;
      closed = true;
      for (const wake of [...wakeups]) wake();
      table.close();
      await new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      });
      store.close();
    },
  };
}
