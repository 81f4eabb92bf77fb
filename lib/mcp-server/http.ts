import { isConsoleOrigin, requestHost } from "@/lib/auth/console-origin";
import { env } from "@/lib/env";
import { ApiError } from "@/lib/http/errors";
import { log } from "@/lib/log";

// The HTTP frame of the MCP endpoint before the SDK sees a message: where a
// request may come from, which console its links point to, and how a refusal
// is written — a JSON-RPC error object (what MCP clients parse) whose `data`
// carries the same typed code and request id as the /v1 envelope.

export type JsonRpcId = string | number | null;

export function jsonRpcError(
  status: number,
  code: number,
  message: string,
  extra: { data?: Record<string, unknown>; headers?: Record<string, string>; id?: JsonRpcId } = {},
): Response {
  const error: Record<string, unknown> = { code, message };
  if (extra.data) error.data = extra.data;
  return new Response(JSON.stringify({ jsonrpc: "2.0", error, id: extra.id ?? null }), {
    status,
    headers: { "content-type": "application/json", ...extra.headers },
  });
}

/**
 * A JSON-RPC error a request handler answers with. The SDK sends a thrown
 * error's code, message and data as they are; its own McpError would prefix
 * the message with "MCP error <code>:".
 */
export class ProtocolError extends Error {
  constructor(
    readonly code: number,
    message: string,
    readonly data?: Record<string, unknown>,
  ) {
    super(message);
    this.name = "ProtocolError";
  }
}

/** Logs an unexpected failure under the request id; the client learns only that, and the id to quote. */
export function internalErrorData(requestId: string, error: unknown): { code: "internal_error"; request_id: string } {
  log("error", "mcp_request_failed", {
    request_id: requestId,
    error: error instanceof Error ? `${error.name}: ${error.message}` : "non-error thrown",
  });
  return { code: "internal_error", request_id: requestId };
}

/** A Guichet refusal (auth, scope, tenancy, rate limit, parameters) in the protocol's HTTP terms. */
export function refusal(error: ApiError, requestId: string): Response {
  const headers: Record<string, string> = { ...error.headers };
  if (error.code === "unauthenticated") headers["www-authenticate"] = 'Bearer realm="guichet"';
  if (error.code === "insufficient_scope")
    headers["www-authenticate"] = 'Bearer realm="guichet", error="insufficient_scope", scope="runs:write"';
  const data: Record<string, unknown> = { code: error.code, request_id: requestId };
  if (error.errors) data.errors = error.errors;
  if (error.reason) data.reason = error.reason;
  // -32001 is the SDK's "not found" for sessions; other HTTP refusals use the generic server error range.
  return jsonRpcError(error.status, error.status === 404 ? -32001 : -32000, error.message, { data, headers });
}

/** The origin links in MCP answers point to: the configured console URL, else the one this request reached. */
export function consoleOrigin(request: Request): string {
  return env.consoleOrigin ?? new URL(request.url).origin;
}

/**
 * DNS-rebinding protection: a browser page may call the endpoint only from the
 * console's own origin (lib/auth/console-origin.ts, the same rule as the /v1
 * cookie-auth check) or an origin the operator listed. Requests without an
 * Origin header come from programs, not pages, and pass (the API key still
 * decides).
 */
export function originAllowed(request: Request): boolean {
  const origin = request.headers.get("origin");
  if (origin === null) return true;
  if (env.mcpAllowedOrigins.includes(origin)) return true;
  return isConsoleOrigin(origin, requestHost(request));
}
