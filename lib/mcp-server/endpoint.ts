import { WebStandardStreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js";
import {
  CallToolRequestSchema,
  CancelTaskRequestSchema,
  GetTaskPayloadRequestSchema,
  GetTaskRequestSchema,
  InitializeRequestSchema,
  isJSONRPCRequest,
  JSONRPCMessageSchema,
  ListResourcesRequestSchema,
  ListToolsRequestSchema,
  ReadResourceRequestSchema,
  type JSONRPCMessage,
} from "@modelcontextprotocol/sdk/types.js";
import type { Principal } from "@/lib/auth/principal";
import { hasAnyScope } from "@/lib/auth/scopes";
import { env } from "@/lib/env";
import { authenticateBearer } from "@/lib/http/bearer";
import { agentResource, isSecretOf, issuerOf, type OAuthScope } from "@/lib/oauth/config";
import { verifyAccessToken } from "@/lib/oauth/grants";
import { parseJsonText, readBoundedBody } from "@/lib/http/body";
import { ApiError } from "@/lib/http/errors";
import { enforceRateLimit } from "@/lib/http/rate-limit";
import { newId } from "@/lib/ids";
import { RunCapabilities } from "@/lib/runs/api";
import { driverOf } from "@/lib/runs/driver";
import type { RunRow } from "@/lib/runs/service";
import { consoleOrigin, internalErrorData, jsonRpcError, originAllowed, refusal } from "./http";
import { buildSessionServer, sessionInstructions } from "./server";
import { runCommitRoutes } from "./tools";
import { endSession, findSession, newSessionId, openSession, sessionTakesUrlElicitation } from "./session";
import { withOAuthChallenge } from "./oauth-challenge";

// POST|GET|DELETE /mcp/agents/{agent}: Guichet as an MCP server (Streamable
// HTTP). Guichet checks what the SDK cannot know — origin, API key, scope,
// rate limit, body size, the session's run — then hands the one message to a
// fresh SDK server and transport. JSON answers, or an SSE stream when the
// client asked for progress.

/** Who calls the door: an API key, or a member through an OAuth client (with the grant's scope). */
interface DoorCaller {
  principal: Principal;
  oauth: { grantId: string; clientName: string; scope: OAuthScope } | null;
}

async function authenticate(request: Request, agentId: string): Promise<DoorCaller> {
  const token = /^Bearer\s+(\S+)$/i.exec(request.headers.get("authorization") ?? "")?.[1];
  if (token && isSecretOf("access", token)) {
    // An OAuth access token: bound to one agent's MCP URL, and read from the database on each request.
    const access = await verifyAccessToken(token, agentResource(issuerOf(request), agentId));
    if (typeof access === "string")
      throw new ApiError(
        "unauthenticated",
        access === "wrong_resource"
          ? "This access token was issued for another resource."
          : "Invalid, expired or revoked access token.",
        { reason: { oauth_error: "invalid_token" } },
      );
    await enforceRateLimit(access.principal);
    return { principal: access.principal, oauth: access };
  }
  const principal = await authenticateBearer(request.headers.get("authorization"));
  // A session is a run and its tool calls: the scope POST /v1/runs and tool_calls need.
  if (!hasAnyScope(principal.scopes, ["runs:write"])) {
    throw new ApiError("insufficient_scope", "This endpoint needs the scope runs:write.", {
      reason: { required_scopes: ["runs:write"] },
    });
  }
  await enforceRateLimit(principal);
  return { principal, oauth: null };
}

type ParsedBody = { message: JSONRPCMessage } | { response: Response };

function parseMessage(text: string): ParsedBody {
  // The same bounds as every /v1 body (depth before JSON.parse, then lone surrogates), in JSON-RPC's words.
  let raw: unknown;
  try {
    raw = parseJsonText(text);
  } catch (error) {
    if (!(error instanceof ApiError)) throw error;
    const parseError = error.code === "invalid_json";
    return {
      response: jsonRpcError(
        400,
        parseError ? -32700 : -32600,
        `${parseError ? "Parse error" : "Invalid Request"}: ${error.message}`,
        { data: { code: error.code } },
      ),
    };
  }
  // Batches left the protocol in 2025-06-18; one message per request keeps one run's calls in order.
  if (Array.isArray(raw))
    return {
      response: jsonRpcError(
        400,
        -32600,
        "Invalid Request: batches are not supported; send one JSON-RPC message per request.",
      ),
    };
  const parsed = JSONRPCMessageSchema.safeParse(raw);
  if (!parsed.success) return { response: jsonRpcError(400, -32600, "Invalid Request: not a JSON-RPC 2.0 message.") };
  return { message: parsed.data };
}

// The SDK checks a request against its schema before our handler runs and
// answers a mismatch as -32603 with the validator's text; the protocol's word
// for it is -32602, naming the field.
const REQUEST_SCHEMAS = new Map(
  [
    CallToolRequestSchema,
    ListToolsRequestSchema,
    ListResourcesRequestSchema,
    ReadResourceRequestSchema,
    GetTaskRequestSchema,
    GetTaskPayloadRequestSchema,
    CancelTaskRequestSchema,
  ].map((schema) => [schema.shape.method.value as string, schema]),
);

function invalidParams(message: JSONRPCMessage): Response | null {
  if (!isJSONRPCRequest(message)) return null;
  const parsed = REQUEST_SCHEMAS.get(message.method)?.safeParse(message);
  if (!parsed || parsed.success) return null;
  const issue = parsed.error.issues[0];
  const field = issue.path.filter((part) => part !== "params").join(".");
  return jsonRpcError(200, -32602, `Invalid params: ${field || "params"}: ${issue.message}`, {
    id: message.id,
    data: { code: "invalid_parameter", field: field || null },
  });
}

function wantsProgress(message: JSONRPCMessage): boolean {
  if (!isJSONRPCRequest(message)) return false;
  const meta = (message.params as { _meta?: { progressToken?: unknown } } | undefined)?._meta;
  return meta?.progressToken !== undefined;
}

async function serve(
  request: Request,
  message: JSONRPCMessage,
  run: RunRow | null,
  options: { requestId: string; sessionId?: string; instructions?: string },
): Promise<Response> {
  const server = buildSessionServer(run, {
    consoleOrigin: consoleOrigin(request),
    requestId: options.requestId,
    instructions: options.instructions,
    urlElicitation: sessionTakesUrlElicitation(request.headers.get("mcp-session-id")),
    signal: request.signal,
  });
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

async function initialize(
  request: Request,
  { principal, oauth }: DoorCaller,
  agentId: string,
  message: JSONRPCMessage,
  requestId: string,
): Promise<Response> {
  const init = InitializeRequestSchema.safeParse(message);
  // A malformed initialize gets the SDK's own answer, and no run is created for it.
  if (!init.success) return serve(request, message, null, { requestId });
  const capabilities = RunCapabilities.safeParse(new URL(request.url).searchParams.get("capabilities") ?? "read");
  if (!capabilities.success) {
    throw new ApiError("invalid_parameter", "capabilities must be read or read_write.", {
      errors: [{ field: "capabilities", code: "invalid_enum_value", message: "must be read or read_write" }],
    });
  }
  // Under OAuth the grant says what the session may do; a URL asking for more is answered with the scope to ask for.
  if (oauth && capabilities.data === "read_write" && oauth.scope !== "mcp:read_write")
    throw new ApiError("insufficient_scope", "Writing through this agent needs the scope mcp:read_write.", {
      reason: { required_scopes: ["mcp:read_write"] },
    });
  // `elicitation: {}` alone means form mode only (2025-11-25): URL mode must be named.
  const sessionId = newSessionId(init.data.params.capabilities.elicitation?.url !== undefined);
  const { run, warnings } = await openSession(
    principal,
    agentId,
    capabilities.data,
    init.data.params.clientInfo,
    sessionId,
    oauth,
  );
  return serve(request, message, run, {
    requestId,
    sessionId,
    instructions: sessionInstructions(await runCommitRoutes(run), warnings),
  });
}

async function sessionRun(
  request: Request,
  { principal, oauth }: DoorCaller,
  agentId: string,
): Promise<RunRow | Response> {
  const sessionId = request.headers.get("mcp-session-id");
  if (!sessionId) return jsonRpcError(400, -32000, "Bad Request: Mcp-Session-Id header is required; initialize first.");
  const run =
    sessionId.length <= 200
      ? await findSession(
          principal.organizationId,
          agentId,
          sessionId,
          driverOf(principal),
          undefined,
          oauth?.grantId ?? null,
        )
      : null;
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
      response = withOAuthChallenge(refusal(error, requestId), error, request, agentId);
    } else {
      response = jsonRpcError(500, -32603, "Internal error.", { data: internalErrorData(requestId, error) });
    }
  }
  response.headers.set("x-request-id", requestId);
  return response;
}

async function route(request: Request, agentId: string, requestId: string): Promise<Response> {
  if (!originAllowed(request))
    return jsonRpcError(403, -32000, "Forbidden: this Origin may not call the MCP endpoint.", {
      data: { code: "forbidden", request_id: requestId },
    });
  if (request.method === "GET") {
    // No server-initiated stream: everything a session needs comes back on its own requests.
    return jsonRpcError(405, -32000, "Method not allowed: this server offers no GET stream; use POST.", {
      headers: { allow: "POST, DELETE" },
    });
  }
  const caller = await authenticate(request, agentId);
  if (request.method === "DELETE") {
    const run = await sessionRun(request, caller, agentId);
    if (run instanceof Response) return run;
    await endSession(run);
    return new Response(null, { status: 204 });
  }
  const body = await readBoundedBody(request);
  if ("tooLarge" in body)
    return jsonRpcError(413, -32000, `Payload too large: the body is limited to ${env.GUICHET_MAX_BODY_BYTES} bytes.`, {
      data: { code: "payload_too_large", request_id: requestId },
    });
  if ("invalidUtf8" in body)
    return jsonRpcError(400, -32700, "Parse error: the body holds bytes that are not UTF-8.", {
      data: { code: "invalid_json", request_id: requestId },
    });
  const parsed = parseMessage(body.text);
  if ("response" in parsed) return parsed.response;
  if (InitializeRequestSchema.shape.method.safeParse((parsed.message as { method?: unknown }).method).success) {
    return initialize(request, caller, agentId, parsed.message, requestId);
  }
  const run = await sessionRun(request, caller, agentId);
  if (run instanceof Response) return run;
  return invalidParams(parsed.message) ?? serve(request, parsed.message, run, { requestId });
}
