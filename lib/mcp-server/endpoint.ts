import { WebStandardStreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js";
import { InitializeRequestSchema, isJSONRPCRequest, JSONRPCMessageSchema, type JSONRPCMessage } from "@modelcontextprotocol/sdk/types.js";
import { authenticateApiKey } from "@/lib/api-keys/service";
import type { Principal } from "@/lib/auth/principal";
import { hasAnyScope } from "@/lib/auth/scopes";
import { env } from "@/lib/env";
import { findLoneSurrogate, jsonDepthExceeds } from "@/lib/http/body";
import { ApiError } from "@/lib/http/errors";
import { enforceRateLimit } from "@/lib/http/rate-limit";
import { newId } from "@/lib/ids";
import { log } from "@/lib/log";
import { RunCapabilities } from "@/lib/runs/api";
import type { RunRow } from "@/lib/runs/service";
import { consoleOrigin, jsonRpcError, originAllowed, readBoundedBody, refusal } from "./http";
import { buildSessionServer, sessionInstructions } from "./server";
import { endSession, findSession, newSessionId, openSession } from "./session";

// POST|GET|DELETE /mcp/agents/{agent}: Guichet as an MCP server (Streamable
// HTTP). Guichet checks what the SDK cannot know — origin, API key, scope,
// rate limit, body size, the session's run — then hands the one message to a
// fresh SDK server and transport. JSON answers, or an SSE stream when the
// client asked for progress.

async function authenticate(request: Request): Promise<Principal> {
  const match = /^Bearer\s+(\S+)$/i.exec(request.headers.get("authorization") ?? "");
  if (!match) throw new ApiError("unauthenticated", "Missing API key: send Authorization: Bearer <key>.");
  const principal = await authenticateApiKey(match[1]);
  if (!principal) throw new ApiError("unauthenticated", "Invalid or revoked API key.");
  // A session is a run and its tool calls: the scope POST /v1/runs and tool_calls need.
  if (!hasAnyScope(principal.scopes, ["runs:write"])) {
    throw new ApiError("insufficient_scope", "This endpoint needs the scope runs:write.", { reason: { required_scopes: ["runs:write"] } });
  }
  await enforceRateLimit(principal);
  return principal;
}

type ParsedBody = { message: JSONRPCMessage } | { response: Response };

function parseMessage(text: string): ParsedBody {
  // The same bounds as every /v1 body, before JSON.parse or the SDK's schemas walk the value.
  if (jsonDepthExceeds(text, env.GUICHET_MAX_JSON_DEPTH)) {
    return { response: jsonRpcError(400, -32600, `Invalid Request: the message nests deeper than ${env.GUICHET_MAX_JSON_DEPTH} levels.`, { data: { code: "json_too_deep" } }) };
  }
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch {
    return { response: jsonRpcError(400, -32700, "Parse error: the body is not valid JSON.") };
  }
  // Batches left the protocol in 2025-06-18; one message per request keeps one run's calls in order.
  if (findLoneSurrogate(raw)) return { response: jsonRpcError(400, -32600, "Invalid Request: a string is not valid Unicode (a lone UTF-16 surrogate).", { data: { code: "invalid_parameter" } }) };
  if (Array.isArray(raw)) return { response: jsonRpcError(400, -32600, "Invalid Request: batches are not supported; send one JSON-RPC message per request.") };
  const parsed = JSONRPCMessageSchema.safeParse(raw);
  if (!parsed.success) return { response: jsonRpcError(400, -32600, "Invalid Request: not a JSON-RPC 2.0 message.") };
  return { message: parsed.data };
}

function wantsProgress(message: JSONRPCMessage): boolean {
  if (!isJSONRPCRequest(message)) return false;
  const meta = (message.params as { _meta?: { progressToken?: unknown } } | undefined)?._meta;
  return meta?.progressToken !== undefined;
}

async function serve(request: Request, message: JSONRPCMessage, run: RunRow | null, options: { sessionId?: string; instructions?: string }): Promise<Response> {
  const server = buildSessionServer(run, { consoleOrigin: consoleOrigin(request), instructions: options.instructions });
  const transport = new WebStandardStreamableHTTPServerTransport({
    sessionIdGenerator: options.sessionId === undefined ? undefined : () => options.sessionId as string,
    enableJsonResponse: !wantsProgress(message),
  });
  await server.connect(transport);
  const response = await transport.handleRequest(request, { parsedBody: message });
  // A JSON answer is complete here; a stream closes the server when it ends.
  if (response.headers.get("content-type")?.startsWith("application/json") || !response.body) await server.close();
  return response;
}

async function initialize(request: Request, principal: Principal, agentId: string, message: JSONRPCMessage): Promise<Response> {
  const init = InitializeRequestSchema.safeParse(message);
  // A malformed initialize gets the SDK's own answer, and no run is created for it.
  if (!init.success) return serve(request, message, null, {});
  const capabilities = RunCapabilities.safeParse(new URL(request.url).searchParams.get("capabilities") ?? "read");
  if (!capabilities.success) {
    throw new ApiError("invalid_parameter", "capabilities must be read or read_write.", { errors: [{ field: "capabilities", code: "invalid_enum_value", message: "must be read or read_write" }] });
  }
  const sessionId = newSessionId();
  const { run, warnings } = await openSession(principal, agentId, capabilities.data, init.data.params.clientInfo, sessionId);
  return serve(request, message, run, { sessionId, instructions: sessionInstructions(warnings) });
}

async function sessionRun(request: Request, principal: Principal, agentId: string): Promise<RunRow | Response> {
  const sessionId = request.headers.get("mcp-session-id");
  if (!sessionId) return jsonRpcError(400, -32000, "Bad Request: Mcp-Session-Id header is required; initialize first.");
  const run = sessionId.length <= 200 ? await findSession(principal.organizationId, agentId, sessionId) : null;
  return run ?? jsonRpcError(404, -32001, "Session not found: it ended or never existed; initialize a new one.");
}

/** One request to the MCP endpoint of an agent. */
export async function handleMcpRequest(request: Request, agentId: string): Promise<Response> {
  const requestId = newId("req");
  let response: Response;
  try {
    response = await route(request, agentId, requestId);
  } catch (error) {
    if (error instanceof ApiError) {
      response = refusal(error, requestId);
    } else {
      log("error", "mcp_request_failed", { request_id: requestId, error: error instanceof Error ? `${error.name}: ${error.message}` : "non-error thrown" });
      response = jsonRpcError(500, -32603, "Internal error.", { data: { code: "internal_error", request_id: requestId } });
    }
  }
  response.headers.set("x-request-id", requestId);
  return response;
}

async function route(request: Request, agentId: string, requestId: string): Promise<Response> {
  if (!originAllowed(request)) return jsonRpcError(403, -32000, "Forbidden: this Origin may not call the MCP endpoint.", { data: { code: "forbidden", request_id: requestId } });
  if (request.method === "GET") {
    // No server-initiated stream: everything a session needs comes back on its own requests.
    return jsonRpcError(405, -32000, "Method not allowed: this server offers no GET stream; use POST.", { headers: { allow: "POST, DELETE" } });
  }
  const principal = await authenticate(request);
  if (request.method === "DELETE") {
    const run = await sessionRun(request, principal, agentId);
    if (run instanceof Response) return run;
    await endSession(run);
    return new Response(null, { status: 204 });
  }
  const body = await readBoundedBody(request);
  if ("tooLarge" in body) return jsonRpcError(413, -32000, `Payload too large: the body is limited to ${env.GUICHET_MAX_BODY_BYTES} bytes.`, { data: { code: "payload_too_large", request_id: requestId } });
  const parsed = parseMessage(body.text);
  if ("response" in parsed) return parsed.response;
  if (InitializeRequestSchema.shape.method.safeParse((parsed.message as { method?: unknown }).method).success) {
    return initialize(request, principal, agentId, parsed.message);
  }
  const run = await sessionRun(request, principal, agentId);
  if (run instanceof Response) return run;
  return serve(request, parsed.message, run, {});
}
