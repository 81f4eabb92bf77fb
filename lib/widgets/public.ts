import "server-only";
import { clientAddress } from "@/lib/auth/client-address";
import { isConsoleOrigin, requestHost } from "@/lib/auth/console-origin";
import { db } from "@/lib/db";
import { WatchedCache, withinRequest } from "@/lib/db/changes";
import { env } from "@/lib/env";
import { ApiError, notFound, toErrorEnvelope } from "@/lib/http/errors";
import { hitChainExactly, hitExactly, windowStartOf } from "@/lib/http/rate-limit";
import { securityHeaders } from "@/lib/http/security-headers";
import { newId } from "@/lib/ids";
import { allowedOriginsOf, limitsOf, type WidgetRow } from "./service";
import { conversationTurns, visitorConversation } from "./conversations";
import { openTurn, type TurnCounter } from "./turn";
import { keyTagOf, readVisitorToken, type Visitor } from "./visitor";

// The widget's public surface (/widget/v1/…), apart from the console and /v1:
// no cookie is read or set, and every request is hostile until its `Origin`
// is one the widget lists — checked before any other work. CORS answers only
// that origin. Errors are the usual typed envelope.

const HOUR_MS = 3_600_000;
const DAY_MS = 24 * HOUR_MS;
/** A counter that never rolls over: the messages of one conversation. */
const FOREVER_MS = 100 * 365 * DAY_MS;

export interface PublicContext {
  /** The origin that CORS may answer: set once it was found in the widget's list. */
  allowedOrigin: string | null;
}

function corsHeaders(origin: string | null): Record<string, string> {
  return origin
    ? {
        "access-control-allow-origin": origin,
        "access-control-allow-headers": "authorization, content-type, last-event-id",
        "access-control-allow-methods": "GET, POST, OPTIONS",
        "access-control-max-age": "600",
      }
    : {};
}

/** Wraps a public route: the typed envelope for every error, security and CORS headers on every answer. */
export function publicRoute<P>(
  run: (request: Request, context: PublicContext, params: P) => Promise<Response | { status?: number; body: unknown }>,
) {
  // withinRequest: the request's lookups in kept data (the widget, the plan, the catalog…) share one
  // read of the change signal on PostgreSQL (lib/db/changes.ts), as every /v1 request's do.
  return (request: Request, route: { params: Promise<P> }): Promise<Response> =>
    withinRequest(() => answerPublic(request, route, run));
}

async function answerPublic<P>(
  request: Request,
  route: { params: Promise<P> },
  run: (request: Request, context: PublicContext, params: P) => Promise<Response | { status?: number; body: unknown }>,
): Promise<Response> {
  const context: PublicContext = { allowedOrigin: null };
  const requestId = newId("req");
  const headers: Record<string, string> = {
    ...securityHeaders(),
    vary: "Origin",
    "cache-control": "no-store",
    "x-request-id": requestId,
  };
  try {
    const answer = await run(request, context, await route.params);
    if (answer instanceof Response) {
      for (const [key, value] of Object.entries({ ...headers, ...corsHeaders(context.allowedOrigin) }))
        if (!answer.headers.has(key)) answer.headers.set(key, value);
      return answer;
    }
    return Response.json(answer.body, {
      status: answer.status ?? 200,
      headers: { ...headers, ...corsHeaders(context.allowedOrigin) },
    });
  } catch (error) {
    const { status, body, headers: extra } = toErrorEnvelope(error, requestId);
    return Response.json(body, { status, headers: { ...headers, ...extra, ...corsHeaders(context.allowedOrigin) } });
  }
}

/** The page's origin; a request without one (not from a browser page) is refused before anything is read. */
export function requestOrigin(request: Request): string {
  const origin = request.headers.get("origin");
  if (!origin || origin === "null")
    throw new ApiError("widget_origin_not_allowed", "This request has no Origin: the widget answers web pages only.");
  return origin;
}

export function assertOriginAllowed(widget: WidgetRow, origin: string, context: PublicContext): void {
  if (!allowedOriginsOf(widget).includes(origin))
    throw new ApiError("widget_origin_not_allowed", `This site (${origin.slice(0, 200)}) may not use this widget.`, {
      reason: { origin: origin.slice(0, 200) },
    });
  context.allowedOrigin = origin;
}

/** The widget of a public key; an unknown (or rotated) key is 404. */
export async function widgetByPublicKey(publicKey: string): Promise<WidgetRow> {
  if (!/^pk_[A-Za-z0-9_-]{10,64}$/.test(publicKey)) throw notFound("Widget");
  const widget = await db.widget.findUnique({ where: { publicKey } });
  if (!widget) throw notFound("Widget");
  return widget;
}

/** An inactive widget or agent: the bubble shows « indisponible ». */
export async function assertAvailable(widget: WidgetRow): Promise<void> {
  const agent = await db.agent.findFirst({
    where: { id: widget.agentId, organizationId: widget.organizationId },
    select: { active: true },
  });
  if (!widget.active || !agent?.active)
    throw new ApiError("widget_unavailable", "This assistant is unavailable for now.");
}

/** Whether any active widget lists this origin: what a CORS preflight (no body, no token) may be told. */
export async function anyWidgetAllows(origin: string): Promise<boolean> {
  const needle = `%${JSON.stringify(origin).replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
  const rows = await db.$queryRaw<{ n: number | bigint }[]>`
    SELECT COUNT(*) AS n FROM "Widget" WHERE "active" = ${true} AND CAST("allowedOrigins" AS TEXT) LIKE ${needle} ESCAPE '\\'`;
  return Number(rows[0]?.n ?? 0) > 0;
}

export async function preflight(request: Request): Promise<Response> {
  const origin = request.headers.get("origin");
  const allowed = origin && origin !== "null" && (await anyWidgetAllows(origin)) ? origin : null;
  return new Response(null, {
    status: 204,
    headers: { ...securityHeaders(), vary: "Origin", ...corsHeaders(allowed) },
  });
}

interface KeptWidget {
  widget: WidgetRow;
  agentActive: boolean;
}

/**
 * Widgets with whether their agent is active, kept by each instance while the "widgets" topic is
 * unchanged (lib/db/changes.ts: a widget changed in any way, an agent activated, deactivated or
 * deleted, by any instance or process): a widget deactivated, its origins or its key changed, is
 * seen by the very next bubble request of every instance. What is kept is never changed in place.
 */
const keptWidgets = new WatchedCache<string, KeptWidget>(["widgets"], 10_000);

/** The widget (scoped by its organization, both from the signed visitor token) and its agent's state, in one read. */
function widgetOfVisitor(organizationId: string, widgetId: string): Promise<KeptWidget | null> {
  return keptWidgets.get(`${organizationId}/${widgetId}`, async () => {
    const row = await db.widget.findFirst({
      where: { id: widgetId, organizationId },
      include: { agent: { select: { active: true } } },
    });
    if (!row) return null;
    const { agent, ...widget } = row;
    return { widget, agentActive: agent.active };
  });
}

export interface VisitorSession {
  widget: WidgetRow;
  /** Whether the widget's agent is active, read with the widget. */
  agentActive: boolean;
  visitor: Visitor;
  origin: string;
}

/**
 * The visitor behind a request: its token must have been issued for this very
 * origin, for a widget that still exists with the same public key and still lists
 * the origin. Anything else is refused before the conversation is looked at.
 */
export async function visitorSession(request: Request, context: PublicContext): Promise<VisitorSession> {
  const origin = requestOrigin(request);
  const claims = await readVisitorToken(request.headers.get("authorization"));
  const kept = await widgetOfVisitor(claims.organizationId, claims.widgetId);
  if (!kept) throw new ApiError("visitor_token_invalid", "The visitor token is not valid.");
  const { widget, agentActive } = kept;
  if (claims.visitor.preview) {
    // A preview session (lib/widgets/preview.ts) works from the console origin it was opened on, nowhere else.
    if (claims.origin !== origin || !isConsoleOrigin(origin, requestHost(request)))
      throw new ApiError("visitor_token_invalid", "This visitor token was issued for another page or key.");
    context.allowedOrigin = origin;
  } else assertOriginAllowed(widget, origin, context);
  if (claims.origin !== origin || claims.keyTag !== keyTagOf(widget))
    throw new ApiError("visitor_token_invalid", "This visitor token was issued for another page or key.");
  return { widget, agentActive, visitor: claims.visitor, origin };
}

/** assertAvailable for a visitor session, from what visitorSession read. */
export function assertSessionAvailable(session: VisitorSession): void {
  if (!session.widget.active || !session.agentActive)
    throw new ApiError("widget_unavailable", "This assistant is unavailable for now.");
}

function limited(scope: string, retryAfterMs: number): ApiError {
  const seconds = Math.max(1, Math.ceil(retryAfterMs / 1000));
  return new ApiError("rate_limited", `Too many messages (${scope}). Retry in ${seconds} s.`, {
    headers: { "retry-after": String(seconds) },
    reason: { scope, retry_after: seconds, retry_after_ms: retryAfterMs },
  });
}

const addressCounter = (request: Request): TurnCounter => ({
  key: `widget:addr:${clientAddress(request.headers)}`,
  limit: env.GUICHET_WIDGET_REQUESTS_PER_ADDRESS_PER_HOUR,
  windowMs: HOUR_MS,
});

/** The client address's share of the public surface. */
export async function takeAddressSlot(request: Request): Promise<void> {
  const { key, limit, windowMs } = addressCounter(request);
  const decision = await hitExactly(key, limit, windowMs);
  if (!decision.allowed) throw limited("client_address", decision.retryAfterMs);
}

/** A message's counters, in the order they are taken: the visitor's hour, then the conversation's total. */
function messageCounters(session: VisitorSession, conversationId: string): [TurnCounter, TurnCounter] {
  const limits = limitsOf(session.widget);
  return [
    {
      key: `widget:${session.widget.id}:visitor:${session.visitor.id}`,
      limit: limits.messages_per_visitor_per_hour,
      windowMs: HOUR_MS,
    },
    { key: `widget:conversation:${conversationId}`, limit: limits.messages_per_conversation, windowMs: FOREVER_MS },
  ];
}
const MESSAGE_SCOPES = ["visitor", "conversation"] as const;

/**
 * One more message of a visitor in a conversation: counted where every instance sees it, one by one
 * — the visitor's hour, then the conversation's total, the second untouched when the first refuses —
 * in one round trip (hitChainExactly).
 */
export async function takeMessageSlot(session: VisitorSession, conversationId: string): Promise<void> {
  const { refused, retryAfterMs } = await hitChainExactly(messageCounters(session, conversationId));
  if (refused >= 0) throw limited(MESSAGE_SCOPES[refused], retryAfterMs);
}

/**
 * Everything a visitor message checks and counts before its run starts, refused in this order: the
 * client address's share, the conversation (the visitor's own, else 404), the body, the widget's and
 * its agent's availability, the visitor's hour, the conversation's total — each counter taken only
 * when everything before it passed, as if one by one. Answers the message and the conversation so far.
 * On the driver this is one round trip (lib/widgets/turn.ts); otherwise (Redis) the calls one by one.
 */
export async function openVisitorTurn(
  request: Request,
  session: VisitorSession,
  conversationId: string,
  body: Promise<{ content: string }>,
): Promise<{ content: string; history: { role: "user" | "assistant"; content: string }[] }> {
  // Read first, locally: whether the message counters are taken depends on it.
  const parsed = await body.then(
    (value) => ({ ok: true as const, value }),
    (error: unknown) => ({ ok: false as const, error }),
  );
  const available = session.widget.active && session.agentActive;
  const address = addressCounter(request);
  const message = parsed.ok && available ? messageCounters(session, conversationId) : [];
  const now = Date.now();
  const outcome = await openTurn(
    {
      address,
      conversation: {
        id: conversationId,
        organizationId: session.widget.organizationId,
        widgetId: session.widget.id,
        visitorId: session.visitor.id,
      },
      message,
    },
    now,
  );
  if (!outcome) return openVisitorTurnOneByOne(request, session, conversationId, parsed);
  const waitOf = (counter: TurnCounter) => windowStartOf(counter.windowMs, now) + counter.windowMs - now;
  if (outcome.counts[0]! > address.limit) throw limited("client_address", waitOf(address));
  if (!outcome.found) throw notFound("Conversation");
  if (!parsed.ok) throw parsed.error;
  assertSessionAvailable(session);
  message.forEach((counter, i) => {
    const count = outcome.counts[i + 1];
    if (count !== null && count !== undefined && count > counter.limit)
      throw limited(MESSAGE_SCOPES[i], waitOf(counter));
  });
  return { content: parsed.value.content, history: outcome.history };
}

/** openVisitorTurn one call at a time, where the counters are not in the database (Redis). */
async function openVisitorTurnOneByOne(
  request: Request,
  session: VisitorSession,
  conversationId: string,
  parsed: { ok: true; value: { content: string } } | { ok: false; error: unknown },
) {
  // The address's share, the visitor's own conversation and the conversation so far are independent: read
  // together, refused in that order (the turns of a conversation that is not the visitor's are never used).
  const [address, conversation, turns] = await Promise.allSettled([
    takeAddressSlot(request),
    visitorConversation(session.widget, session.visitor, conversationId),
    conversationTurns(session.widget.organizationId, conversationId),
  ]);
  for (const outcome of [address, conversation, turns]) if (outcome.status === "rejected") throw outcome.reason;
  if (!parsed.ok) throw parsed.error;
  assertSessionAvailable(session);
  await takeMessageSlot(session, conversationId);
  const history = (turns as PromiseFulfilledResult<Awaited<ReturnType<typeof conversationTurns>>>).value.flatMap(
    (turn) => [
      { role: "user" as const, content: turn.content },
      ...(turn.answer ? [{ role: "assistant" as const, content: turn.answer }] : []),
    ],
  );
  return { content: parsed.value.content, history };
}

/** One more conversation of the widget today. */
export async function takeConversationSlot(widget: WidgetRow): Promise<void> {
  const decision = await hitExactly(
    `widget:${widget.id}:conversations`,
    limitsOf(widget).conversations_per_day,
    DAY_MS,
  );
  if (!decision.allowed) throw limited("widget", decision.retryAfterMs);
}
