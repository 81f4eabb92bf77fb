import http, { type IncomingMessage, type ServerResponse } from "node:http";
import { securityHeaders } from "@/lib/http/security-headers";
import { newId } from "@/lib/ids";
import { allowedMethods } from "./methods";

// Some requests never reach our route handlers in a usable shape, so they are
// answered here, on Node's own request, before Next builds a web Request:
// - TRACE and TRACK cannot become a web Request at all (the constructor throws,
//   and Next answers 500 with a stack trace in the log);
// - methods no route exports (QUERY, PROPFIND…) get an empty 400 or 405 from Next;
// - a path that is not valid percent-encoded UTF-8 (`/approbations/%ff`) makes
//   Next's parameter decoding throw (500);
// - a /v1 path with an empty segment would be redirected by Next (308).
// A refused request's body is read to its end and dropped, never buffered, so a
// multipart upload with a wrong method gets an answer its client can read.

/** Non-/v1 routes with the methods they export. */
const OTHER_ROUTES: { pattern: RegExp; methods: string[] }[] = [
  { pattern: /^\/v1\/openapi\.json\/?$/, methods: ["GET"] },
  { pattern: /^\/api\/health\/?$/, methods: ["GET"] },
  { pattern: /^\/api\/bench\/bare\/?$/, methods: ["GET"] },
  { pattern: /^\/api\/auth\//, methods: ["GET", "POST"] },
  { pattern: /^\/api\/invitations\/accept\/?$/, methods: ["POST"] },
  { pattern: /^\/mcp\/agents\/[^/]+\/?$/, methods: ["GET", "POST", "DELETE"] },
];

/** The methods Next can route (the /v1 catch-all exports them; HEAD and OPTIONS are derived). */
const ROUTABLE = new Set(["GET", "HEAD", "OPTIONS", "POST", "PUT", "PATCH", "DELETE"]);

/** What the gate does with a request: let it through, answer it, or hand Next its 404 page. */
export type GateDecision =
  | { kind: "pass" }
  | { kind: "method_not_allowed"; allow: string[] }
  | { kind: "not_found" }
  | { kind: "not_found_page" };

function isApiPath(pathname: string): boolean {
  return pathname === "/v1" || pathname.startsWith("/v1/") || pathname.startsWith("/api/") || pathname.startsWith("/mcp/");
}

function decodable(pathname: string): boolean {
  try {
    decodeURIComponent(pathname);
    return true;
  } catch {
    return false;
  }
}

/** Pure decision from the method and the raw request target, for the server hook and for tests. */
export function gateDecision(method: string, target: string): GateDecision {
  const pathname = target.split("?")[0];
  const api = isApiPath(pathname);
  if (!decodable(pathname)) return api ? { kind: "not_found" } : { kind: "not_found_page" };
  // Console pages answer any method themselves (a 405 with Allow, or a redirect).
  if (!api) return { kind: "pass" };
  // An empty segment (`/v1/agents/`, `/v1/agents//tools`) names no endpoint: a
  // 404 envelope, where Next would redirect it (308) or the table would match it.
  if (pathname.startsWith("/v1/") && /\/(\/|$)/.test(pathname)) return { kind: "not_found" };
  const allowed = OTHER_ROUTES.find((route) => route.pattern.test(pathname))?.methods ?? allowedMethods(pathname);
  if (!allowed) {
    // An unknown path is a 404 whatever the method: the /v1 catch-all route (or
    // Next) says so for the methods Next can route, the gate for the others.
    return ROUTABLE.has(method) ? { kind: "pass" } : { kind: "not_found" };
  }
  // HEAD and OPTIONS are answered by Next itself from the exported handlers.
  if (allowed.includes(method) || method === "HEAD" || method === "OPTIONS") return { kind: "pass" };
  return { kind: "method_not_allowed", allow: allowed };
}

function sendJson(res: ServerResponse, status: number, body: unknown, headers: Record<string, string>) {
  const text = JSON.stringify(body);
  res.writeHead(status, { ...securityHeaders(), ...headers, "content-type": "application/json; charset=utf-8", "content-length": String(Buffer.byteLength(text)) });
  res.end(text);
}

/**
 * How much of a refused request's body is read (and dropped) before the answer.
 * A client such as `fetch` reads the answer only once it has sent its body: an
 * answer sent before, on a connection closed under the upload, reaches it as
 * EPIPE instead of the envelope. Past this many bytes the answer goes at once and
 * the connection closes, so a huge upload does not run on.
 */
export const REFUSED_BODY_DRAIN_BYTES = 16 * 1024 * 1024;

/** Calls `then` once the request's body has been read to its end (dropped, never buffered), or past the limit. */
function afterBody(req: IncomingMessage, res: ServerResponse, then: () => void) {
  let seen = 0;
  let sent = false;
  const send = (closeAfter: boolean) => {
    if (sent) return;
    sent = true;
    if (closeAfter) res.shouldKeepAlive = false;
    then();
  };
  req.on("data", (chunk: Buffer) => {
    seen += chunk.length;
    if (seen > REFUSED_BODY_DRAIN_BYTES) send(true);
  });
  req.on("end", () => send(false));
  req.on("error", () => send(true));
  req.resume();
  // Node's parser refuses a TRACE or TRACK body (its own 400 once the bytes arrive): answer before it does.
  if (req.method === "TRACE" || req.method === "TRACK") send(true);
}

function answer(req: IncomingMessage, res: ServerResponse, decision: GateDecision & { kind: "method_not_allowed" | "not_found" }) {
  const requestId = newId("req");
  afterBody(req, res, () => {
    if (decision.kind === "not_found") {
      return sendJson(res, 404, { error: { code: "not_found", message: "No such endpoint.", request_id: requestId } }, { "x-request-id": requestId });
    }
    const allow = decision.allow.join(", ");
    const message = `${req.method} is not allowed here; use ${allow}.`;
    sendJson(res, 405, { error: { code: "method_not_allowed", message, request_id: requestId } }, { allow, "x-request-id": requestId });
  });
}

/**
 * The connection's remote address, stamped on every request (a client-sent value
 * is overwritten): what the sign-in throttle counts per client.
 */
export const PEER_ADDRESS_HEADER = "x-guichet-peer-address";

/**
 * The request's own path and query, stamped the same way: a console page
 * that sends a signed-out visitor to sign in names the page asked for
 * (`requireMember`), which a server component cannot otherwise read.
 */
export const REQUEST_PATH_HEADER = "x-guichet-request-path";

const installed = Symbol.for("guichet.methodGate");

/**
 * Puts the gate in front of every Node HTTP server of this process (`next start`
 * creates its server before the instrumentation hook runs, so the hook wraps the
 * request event rather than the server's creation).
 */
export function installMethodGate(): void {
  const proto = http.Server.prototype as http.Server & { [installed]?: boolean };
  if (proto[installed]) return;
  proto[installed] = true;
  const emit = proto.emit as (this: http.Server, event: string | symbol, ...args: unknown[]) => boolean;
  proto.emit = function gatedEmit(this: http.Server, event: string | symbol, ...args: unknown[]): boolean {
    if (event === "request") {
      const [req, res] = args as [IncomingMessage, ServerResponse];
      req.headers[PEER_ADDRESS_HEADER] = req.socket.remoteAddress ?? "unknown";
      req.headers[REQUEST_PATH_HEADER] = req.url ?? "/";
      const decision = gateDecision(req.method ?? "GET", req.url ?? "/");
      if (decision.kind === "not_found_page") {
        // Next's own 404 page, which the undecodable path itself cannot reach.
        req.url = "/_not-found";
      } else if (decision.kind !== "pass") {
        answer(req, res, decision);
        return true;
      }
    }
    return emit.call(this, event, ...args);
  } as typeof proto.emit;
}
