import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPError } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { ErrorCode, McpError } from "@modelcontextprotocol/sdk/types.js";
import { z } from "zod";
import { pinnedTransport } from "./session-pool";
import { UrlNotAllowedError, type UrlPolicy } from "@/lib/net/ssrf";

// Guichet's side of the MCP protocol: a Streamable HTTP client that only
// connects where the SSRF rules allow, with a deadline, and whose failures are
// sorted into a few kinds a person can act on.

export interface McpEndpoint {
  url: string;
  /** The organization's bearer token for `org_token` servers, already decrypted. */
  token: string | null;
}

export type McpFailureKind = "url_not_allowed" | "unreachable" | "timeout" | "unauthorized" | "protocol";

export class McpFailure extends Error {
  constructor(
    readonly kind: McpFailureKind,
    message: string,
  ) {
    super(message);
    this.name = "McpFailure";
  }
}

export const MCP_TIMEOUT_MS = 10_000;
const MAX_PAGES = 20;
export const MAX_TOOLS = 500;

/** MCP tool names become part of catalog keys (mcp_<id>_<name>): keep them to a safe alphabet. */
export const ToolName = z.string().regex(/^[A-Za-z0-9_.-]{1,128}$/);

const JsonObject = z.record(z.string(), z.unknown());

/** What Guichet keeps of a listed tool; anything else the server sends is ignored. */
const RemoteTool = z.object({
  name: ToolName,
  description: z.string().max(10_000).optional(),
  inputSchema: JsonObject.refine((s) => s.type === "object", "inputSchema must be an object schema"),
  outputSchema: JsonObject.refine((s) => s.type === "object", "outputSchema must be an object schema").optional(),
  annotations: JsonObject.optional(),
});
export type RemoteTool = z.infer<typeof RemoteTool>;

export interface McpClientOptions {
  timeoutMs?: number;
  /** SSRF policy: pass the organization's grants (lib/net/origin-grants.ts); by default public addresses only. */
  policy?: UrlPolicy;
}

/** Opens a client session, runs `work`, and always closes it. */
export async function withMcpClient<T>(
  endpoint: McpEndpoint,
  work: (client: Client) => Promise<T>,
  options: McpClientOptions = {},
): Promise<T> {
  const timeoutMs = options.timeoutMs ?? MCP_TIMEOUT_MS;
  // A one-off session (listing tools is rare): opened, used and closed, never pooled.
  const transport = pinnedTransport({ url: endpoint.url, token: endpoint.token, net: options.policy ?? {} });
  const client = new Client({ name: "guichet", version: "0.1.0" });
  try {
    await client.connect(transport, { timeout: timeoutMs });
    return await work(client);
  } catch (error) {
    throw classify(error, timeoutMs);
  } finally {
    await client.close().catch(() => undefined);
  }
}

/** Every tool the server lists (all pages), each checked for the shape Guichet relies on. */
export async function listRemoteTools(endpoint: McpEndpoint, options: McpClientOptions = {}): Promise<RemoteTool[]> {
  const timeoutMs = options.timeoutMs ?? MCP_TIMEOUT_MS;
  return withMcpClient(
    endpoint,
    async (client) => {
      const tools: RemoteTool[] = [];
      let cursor: string | undefined;
      for (let page = 0; page < MAX_PAGES; page++) {
        const result = await client.listTools(cursor ? { cursor } : undefined, { timeout: timeoutMs });
        for (const raw of result.tools) {
          const parsed = RemoteTool.safeParse(raw);
          if (!parsed.success) {
            const name = typeof raw.name === "string" ? raw.name.slice(0, 128) : "?";
            throw new McpFailure(
              "protocol",
              `The server listed an unusable tool (${name}): ${parsed.error.issues[0]?.message ?? "invalid"}.`,
            );
          }
          tools.push(parsed.data);
        }
        if (tools.length > MAX_TOOLS)
          throw new McpFailure("protocol", `The server lists more than ${MAX_TOOLS} tools.`);
        cursor = result.nextCursor;
        if (!cursor) break;
      }
      if (cursor) throw new McpFailure("protocol", `The server's tool list did not end after ${MAX_PAGES} pages.`);
      const names = new Set<string>();
      for (const tool of tools) {
        if (names.has(tool.name)) throw new McpFailure("protocol", `The server lists the tool ${tool.name} twice.`);
        names.add(tool.name);
      }
      return tools;
    },
    options,
  );
}

function causeCode(error: unknown): string | undefined {
  for (let e: unknown = error, depth = 0; e && depth < 5; depth++) {
    const code = (e as { code?: unknown }).code;
    if (typeof code === "string") return code;
    e = (e as { cause?: unknown }).cause;
  }
  return undefined;
}

const NETWORK_CODES = new Set([
  "ECONNREFUSED",
  "ECONNRESET",
  "EHOSTUNREACH",
  "ENETUNREACH",
  "ENOTFOUND",
  "EAI_AGAIN",
  "EPIPE",
  "UND_ERR_SOCKET",
]);

function classify(error: unknown, timeoutMs: number): McpFailure {
  if (error instanceof McpFailure) return error;
  if (error instanceof UrlNotAllowedError) return new McpFailure("url_not_allowed", error.message);
  if (error instanceof McpError && error.code === ErrorCode.RequestTimeout) {
    return new McpFailure("timeout", `The server did not answer within ${timeoutMs / 1000} s.`);
  }
  if (error instanceof StreamableHTTPError && (error.code === 401 || error.code === 403)) {
    return new McpFailure("unauthorized", `The server refused the credentials (HTTP ${error.code}).`);
  }
  const code = causeCode(error);
  if (code && NETWORK_CODES.has(code))
    return new McpFailure("unreachable", `The server could not be reached (${code}).`);
  if (typeof error === "object" && error !== null && "issues" in error) {
    return new McpFailure("protocol", "The server's answer is not a valid MCP (JSON-RPC) message.");
  }
  const message = error instanceof Error ? error.message : String(error);
  if (/\b401\b|unauthori[sz]ed/i.test(message))
    return new McpFailure("unauthorized", "The server refused the credentials (HTTP 401).");
  return new McpFailure("protocol", `The server did not answer as an MCP server: ${message.slice(0, 300)}`);
}
