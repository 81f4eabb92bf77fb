import type { z } from "zod";
import { isConsoleOrigin, requestHost } from "@/lib/auth/console-origin";
import type { Principal } from "@/lib/auth/principal";
import { hasAnyScope, scopesForRole } from "@/lib/auth/scopes";
import { cookieHeaderReader, sessionFromCookies } from "@/lib/auth/session-cookie";
import { withinRequest } from "@/lib/db/changes";
import { newId } from "@/lib/ids";
import { authenticateBearer } from "./bearer";
import type { Endpoint } from "./endpoint";
import { readJsonBody } from "./body";
import { ApiError, toErrorEnvelope } from "./errors";
import { withIdempotency } from "./idempotency";
import { enforceRateLimit } from "./rate-limit";
import { parseInput } from "./validation";
import { assertDeclaredAnswer, checkAnswers } from "./declared-answer";
import { inRequestSpan } from "@/lib/observability/spans";
import { ANSWER_ENTRY, asResponse, jsonAnswer, setAnswerHeader, type Answer } from "./answer";

export interface HandlerInput<P extends z.ZodType, Q extends z.ZodType, B extends z.ZodType> {
  params: z.infer<P>;
  query: z.infer<Q>;
  body: z.infer<B>;
  principal: Principal;
  request: Request;
  requestId: string;
}

/** What a handler returns: a body (sent as JSON with the endpoint's status) or a ready Response. */
/**
 * What a handler answers: a Response it built (a download, a stream, a redirect),
 * or the JSON body its endpoint declares (`response`), alone or with a status and headers.
 */
export type HandlerResult<T = unknown> = Response | { status?: number; body: T; headers?: Record<string, string> } | T;

type RouteContext = { params: Promise<Record<string, string | string[]>> };

/** A JSON Response, for routes outside `handle()` (as `handle()` answers its own). */
export function json(body: unknown, status = 200, headers: Record<string, string> = {}): Response {
  return asResponse(jsonAnswer(body, status, headers));
}

async function authenticate(request: Request, endpoint: Endpoint): Promise<Principal> {
  const authorization = request.headers.get("authorization");
  if (authorization) {
    if (endpoint.auth === "session") {
      throw new ApiError("forbidden", "This action needs a signed-in person; API keys cannot perform it.");
    }
    return authenticateBearer(authorization);
  }
  if (endpoint.auth !== "apiKey") {
    // The session cookie alone, read directly: other next-auth cookies (a planted callback-url) play no part.
    const session = await sessionFromCookies(cookieHeaderReader(request.headers.get("cookie")));
    if (session) {
      assertSameOrigin(request);
      const { memberId, organizationId, role, email } = session;
      return { kind: "member", memberId, organizationId, role, email, scopes: scopesForRole(role) };
    }
  }
  throw new ApiError(
    "unauthenticated",
    endpoint.auth === "session" ? "Sign in to continue." : "Missing API key: send Authorization: Bearer <key>.",
  );
}

/**
 * Cookie-authenticated writes must come from our own pages (lib/auth/console-origin.ts,
 * the same rule as the MCP endpoint's). An Origin we cannot read ("null" from a
 * sandboxed frame or a data: URL, or garbage) is not ours either.
 */
function assertSameOrigin(request: Request) {
  if (request.method === "GET" || request.method === "HEAD") return;
  const origin = request.headers.get("origin");
  if (origin === null) return;
  if (!isConsoleOrigin(origin, requestHost(request))) {
    throw new ApiError("forbidden", "Cross-site request refused.");
  }
}

function authorize(principal: Principal, endpoint: Endpoint) {
  if (endpoint.scopes && !hasAnyScope(principal.scopes, endpoint.scopes)) {
    throw new ApiError("insufficient_scope", `This action needs the scope ${endpoint.scopes.join(" or ")}.`, {
      reason: { required_scopes: endpoint.scopes },
    });
  }
  if (endpoint.roles && principal.kind === "member" && !endpoint.roles.includes(principal.role)) {
    throw new ApiError("forbidden", "Your role does not allow this action.");
  }
}

function errorAnswer(error: unknown, requestId: string): Answer {
  const { status, body, headers } = toErrorEnvelope(error, requestId);
  return jsonAnswer(body, status, headers);
}

function queryObject(url: URL): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [key, value] of url.searchParams) out[key] = value;
  return out;
}

function toAnswer(result: unknown, endpoint: Endpoint): Answer {
  if (result instanceof Response) return result;
  const wrapped =
    typeof result === "object" &&
    result !== null &&
    "body" in result &&
    Object.keys(result).every((k) => k === "status" || k === "body" || k === "headers");
  const {
    status = endpoint.status ?? 200,
    body,
    headers,
  } = wrapped ? (result as { status?: number; body: unknown; headers?: Record<string, string> }) : { body: result };
  if (checkAnswers && status < 300) assertDeclaredAnswer(endpoint, body);
  return jsonAnswer(body, status, headers);
}

/**
 * The one wrapper every /v1 handler goes through: request id, authentication
 * (session, API key or both), scopes and roles, rate limit, strict zod parsing of
 * params, query and body, Idempotency-Key on POST, and the single error envelope.
 */
export function handle<P extends z.ZodType, Q extends z.ZodType, B extends z.ZodType, R extends z.ZodType>(
  endpoint: Endpoint<P, Q, B, R>,
  handler: (input: HandlerInput<P, Q, B>) => Promise<HandlerResult<z.input<R>>>,
) {
  const answer = (request: Request, context: RouteContext): Promise<Answer> =>
    // One read of the cache versions for the whole request (lib/db/changes.ts).
    withinRequest(async () => {
      const requestId = newId("req");
      let response: Answer;
      try {
        const principal = await authenticate(request, endpoint);
        authorize(principal, endpoint);
        await enforceRateLimit(principal);
        const params = endpoint.params ? parseInput(endpoint.params, await context.params) : {};
        const query = endpoint.query ? parseInput(endpoint.query, queryObject(new URL(request.url))) : {};
        const rawBody =
          endpoint.body && !endpoint.multipart ? await readJsonBody(request, endpoint.maxJsonDepth) : undefined;
        const body = endpoint.body && rawBody !== undefined ? parseInput(endpoint.body, rawBody) : undefined;
        const run = async () => {
          try {
            return toAnswer(
              await handler({ params, query, body, principal, request, requestId } as HandlerInput<P, Q, B>),
              endpoint,
            );
          } catch (error) {
            return errorAnswer(error, requestId);
          }
        };
        response =
          request.method === "POST"
            ? await withIdempotency(request, principal, rawBody, run, endpoint.idempotencyReplay ?? "stored")
            : await run();
      } catch (error) {
        response = errorAnswer(error, requestId);
      }
      setAnswerHeader(response, "x-request-id", requestId);
      return response;
    });
  // The request's span and metrics, by route template (lib/observability).
  const answerInSpan = (request: Request, context: RouteContext): Promise<Answer> =>
    inRequestSpan(request, endpoint.path, () => answer(request, context));
  // Next calls the route's export and gets a Response; the data plane takes the answer before it is one.
  return Object.assign(
    async (request: Request, context: RouteContext): Promise<Response> =>
      asResponse(await answerInSpan(request, context)),
    { [ANSWER_ENTRY]: answerInSpan },
  );
}
