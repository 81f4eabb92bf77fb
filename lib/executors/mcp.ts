import { StreamableHTTPError } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { CallToolResultSchema, ErrorCode, McpError, type CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { closeMcpSessions, dropMcpSession, withMcpSession, type McpSessionScope } from "@/lib/mcp/session-pool";
import { inMcpClientSpan } from "@/lib/observability/spans";
import { UrlNotAllowedError, type UrlPolicy } from "@/lib/net/ssrf";
import { truncateText } from "./native/upstream";
import { ToolError } from "./errors";

// Calls one tool of a connected MCP server over Streamable HTTP. Every outcome
// becomes either the tool's structured result or a typed ToolError: the
// caller never sees a transport exception, an upstream stack or raw error text
// longer than a sentence. Output validation is the dispatcher's job.

export interface McpCallTarget {
  url: string;
  /** Bearer token for servers with an organization token; null for `auth: none`. */
  token: string | null;
  /** The tool's own name on the server (not the catalog key). */
  tool: string;
  net: UrlPolicy;
  /** Whose session this call may use (lib/mcp/session-pool.ts): never another organization's or member's. */
  scope: McpSessionScope;
}

export const MAX_TEXT_RESULT_CHARS = 20_000;

/** Closes every pooled upstream session (tests, benchmarks, shutdown). */
export const closeMcpClients = closeMcpSessions;

export async function callMcpTool(
  target: McpCallTarget,
  args: unknown,
  options: { signal: AbortSignal; timeoutMs: number },
): Promise<unknown> {
  let result: CallToolResult;
  try {
    result = await withMcpSession(target.scope, target, options.signal, (client) =>
      // The trace goes on to the server in `_meta` (the MCP convention) and in the HTTP headers.
      inMcpClientSpan(
        target,
        async (meta) =>
          (await client.request(
            {
              method: "tools/call",
              params: {
                name: target.tool,
                arguments: args as Record<string, unknown>,
                ...(meta ? { _meta: meta } : {}),
              },
            },
            CallToolResultSchema,
            { signal: options.signal, timeout: options.timeoutMs },
          )) as CallToolResult,
      ),
    );
  } catch (error) {
    const failure = transportFailure(error, options.signal);
    // A refused address, refused credentials, a broken connection: the next call starts a new session.
    if (failure.code === "UPSTREAM_ERROR" || failure.code === "TOOL_UNAVAILABLE") dropMcpSession(target.scope);
    throw failure;
  }
  if (result.isError) throw upstreamRefusal(result);
  if (result.structuredContent !== undefined) return result.structuredContent;
  // A server without an output schema answers text: one bounded string field.
  const text = result.content.flatMap((block) => (block.type === "text" ? [block.text] : [])).join("\n");
  return { text: truncateText(text, MAX_TEXT_RESULT_CHARS) };
}

// Refusals of the token itself (HTTP 401): the request was not served, so a caller holding a
// credential it can renew (a member's OAuth tokens) may renew it and send the call once more.
const credentialRefusals = new WeakSet<ToolError>();

/** Whether the server refused the call's token (HTTP 401) rather than the call. */
export function refusedCredentials(error: unknown): boolean {
  return error instanceof ToolError && credentialRefusals.has(error);
}

function transportFailure(error: unknown, signal: AbortSignal): ToolError {
  if (signal.aborted) return new ToolError("CANCELLED", "The tool call was cancelled.");
  if (error instanceof UrlNotAllowedError)
    return new ToolError("TOOL_UNAVAILABLE", `The connector's address is refused: ${error.message}`);
  if (error instanceof McpError) {
    if (error.code === ErrorCode.RequestTimeout)
      return new ToolError("TIMEOUT", "The MCP server did not answer in time.", { retryable: true });
    if (error.code === ErrorCode.InvalidParams || error.code === ErrorCode.MethodNotFound) {
      return new ToolError(
        "UPSTREAM_ERROR",
        "The MCP server refused the call: it no longer offers this tool in this shape.",
      );
    }
    return new ToolError("UPSTREAM_ERROR", `The MCP server answered with an error (${error.code}).`, {
      retryable: error.code === ErrorCode.InternalError,
    });
  }
  if (error instanceof StreamableHTTPError) {
    const status = error.code ?? 0;
    if (status === 401 || status === 403) {
      const refused = new ToolError(
        "TOOL_UNAVAILABLE",
        `The MCP server refused Guichet's credentials (HTTP ${status}).`,
      );
      if (status === 401) credentialRefusals.add(refused);
      return refused;
    }
    return new ToolError("UPSTREAM_ERROR", `The MCP server answered HTTP ${status}.`, {
      retryable: status >= 500 || status === 429,
    });
  }
  if (error && typeof error === "object" && (error as { name?: string }).name === "ZodError") {
    return new ToolError("UPSTREAM_ERROR", "The MCP server's answer is not a valid tool result.");
  }
  return new ToolError("UPSTREAM_ERROR", "The MCP server could not be reached or closed the connection.", {
    retryable: true,
  });
}

interface TypedError {
  code?: unknown;
  message?: unknown;
  retryable?: unknown;
  field?: unknown;
}

/**
 * The typed error of an error result. MCP puts an error's details in `content`
 * (structuredContent must match the tool's outputSchema, which describes
 * successes), so servers like CRM Acme send `{"error": {...}}` as the text of a
 * block; older servers sent it as structuredContent, still read.
 */
function typedError(result: CallToolResult): TypedError | undefined {
  const structured = (result.structuredContent as { error?: unknown } | undefined)?.error;
  if (structured && typeof structured === "object") return structured as TypedError;
  for (const block of result.content) {
    if (block.type !== "text" || !block.text.trimStart().startsWith("{")) continue;
    try {
      const parsed = JSON.parse(block.text) as { error?: unknown };
      if (parsed && typeof parsed.error === "object" && parsed.error !== null) return parsed.error as TypedError;
    } catch {
      // plain text that happens to start with a brace: the message below uses it
    }
  }
  return undefined;
}

function upstreamRefusal(result: CallToolResult): ToolError {
  const error = typedError(result);
  const code = typeof error?.code === "string" ? error.code : "ERROR";
  const message = truncateText(
    typeof error?.message === "string" ? error.message : textOf(result) || "The tool reported an error.",
    300,
  );
  const field = typeof error?.field === "string" && error.field.startsWith("/") ? error.field : undefined;
  if (code === "INVALID_ARGUMENTS" || code === "VERSION_CONFLICT" || code === "IDEMPOTENCY_KEY_REUSED") {
    return new ToolError(code, message, { field: field ?? null, retryable: false });
  }
  return new ToolError("UPSTREAM_ERROR", `The service refused the call (${truncateText(code, 60)}): ${message}`, {
    retryable: error?.retryable === true,
    field: field ?? null,
    ...(UPSTREAM_CODE.test(code) && code !== "ERROR" ? { upstream_code: code } : {}),
  });
}

/** What a service's own error code may look like to be passed on as `upstream_code` (anything else stays in the message only). */
const UPSTREAM_CODE = /^[A-Za-z][A-Za-z0-9_.-]{0,59}$/;

function textOf(result: CallToolResult): string {
  return result.content.flatMap((block) => (block.type === "text" ? [block.text] : [])).join(" ");
}
