import { randomUUID } from "node:crypto";
import type { IncomingMessage, ServerResponse } from "node:http";
import type { Server } from "@modelcontextprotocol/sdk/server/index.js";
import { StreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/streamableHttp.js";
import { jsonRpcError, sendJson } from "./http";

// CRM Acme's stateful mode (`sessions: true`): each `initialize` opens a session
// whose id the client sends back on every request, as many MCP servers do. A
// request naming a session the server no longer knows answers 404, the signal
// MCP clients must answer by initializing again. The counters let tests see how
// often a client initializes, and `expire()` plays a server that dropped its sessions.

interface Session {
  transport: StreamableHTTPServerTransport;
  mcp: Server;
  /** The response being answered, for the cut_after_commit fault. */
  current: { res: ServerResponse | null };
}

function isInitialize(body: unknown): boolean {
  const msgs = Array.isArray(body) ? body : [body];
  return msgs.some((m) => m && typeof m === "object" && (m as { method?: unknown }).method === "initialize");
}

export class SessionTable {
  private readonly open = new Map<string, Session>();
  /** `initialize` requests received, in either mode. */
  initializations = 0;
  /** Sessions closed by the client's DELETE. */
  terminated = 0;

  constructor(private readonly build: (current: { res: ServerResponse | null }) => Server) {}

  count(body: unknown): void {
    if (isInitialize(body)) this.initializations++;
  }

  stats() {
    return { initializations: this.initializations, open_sessions: this.open.size, terminated: this.terminated };
  }

  /** Forgets every session, as a server restart or an expiry would: their next request answers 404. */
  expire(): number {
    const n = this.open.size;
    for (const session of this.open.values()) void session.mcp.close();
    this.open.clear();
    return n;
  }

  async handle(req: IncomingMessage, res: ServerResponse, body: unknown): Promise<void> {
    const id = req.headers["mcp-session-id"];
    const sessionId = typeof id === "string" ? id : undefined;
    if (sessionId === undefined) {
      if (req.method !== "POST" || !isInitialize(body))
        return sendJson(res, 400, jsonRpcError(-32000, "Bad Request: no session id."));
      const current = { res: res as ServerResponse | null };
      const mcp = this.build(current);
      const transport: StreamableHTTPServerTransport = new StreamableHTTPServerTransport({
        sessionIdGenerator: () => randomUUID(),
        enableJsonResponse: true,
        onsessioninitialized: (sid) => void this.open.set(sid, { transport, mcp, current }),
        onsessionclosed: (sid) => {
          this.terminated++;
          this.open.delete(sid);
        },
      });
      await mcp.connect(transport);
      return transport.handleRequest(req, res, body);
    }
    const session = this.open.get(sessionId);
    if (!session) return sendJson(res, 404, jsonRpcError(-32001, "Session not found"));
    if (req.method === "GET")
      return sendJson(res, 405, jsonRpcError(-32000, "Method not allowed."), { allow: "POST, DELETE" });
    session.current.res = res;
    return session.transport.handleRequest(req, res, body);
  }

  close(): void {
    this.expire();
  }
}
