// The data plane: agent traffic (`Authorization: Bearer` on /v1 and /mcp)
// answered by the same compiled route handlers Next serves, without Next's
// request pipeline. A handler is a Web-standard `(Request, { params }) =>
// Response` wrapped by `handle()` (authentication, scopes, rate limits, strict
// parsing, idempotency, the error envelope, x-request-id): it needs nothing of
// Next's. @hono/node-server's listener turns Node's request into a Request
// (body streamed, `signal` aborted when the client goes away) and writes the
// Response back with back-pressure, cancelling a stream whose client left.
//
// What Next adds around a route handler is added here too: the headers of
// next.config.ts (the security headers), after the handler's own. The method
// gate (lib/openapi/method-gate.ts) runs before either plane, on Node's own
// request event. Requests this plane does not claim go to Next unchanged:
// cookie callers, HEAD and OPTIONS (which Next derives), a trailing slash
// (Next's redirect), an undecodable path (the gate's 404).
//
// Most answers of `handle()` are a status, headers and a JSON text
// (lib/http/answer.ts): the handler's answer entry hands them over before they
// become a Response, and they are written to the socket as they are.
import { getRequestListener } from "@hono/node-server";
import { RESPONSE_ALREADY_SENT } from "@hono/node-server/utils/response";
import { DATA_PLANE_PREFIXES, loadHandlers, matchRoute, readHeaderRules, readRoutes } from "./routes.mjs";

const CLAIM = Symbol("guichet.dataPlaneClaim");
const BEARER = /^bearer\s/i;
/** lib/http/answer.ts */
const ANSWER_ENTRY = Symbol.for("guichet.answerEntry");
const JSON_ANSWER = Symbol.for("guichet.jsonAnswer");

/**
 * Writes a JSON answer and the path's extra headers the handler did not set.
 * @param {import("node:http").ServerResponse} outgoing
 * @param {{ status: number, body: string, headers: Record<string, string> }} answer header names in lower case
 * @param {[string, string][]} extra
 */
function writeJsonAnswer(outgoing, answer, extra) {
  const headers = answer.headers;
  for (const [key, value] of extra) if (!(key in headers)) headers[key] = value;
  // A known length, not a chunked body: writeHead() fixes the framing before end() sees the text.
  if (answer.status !== 204 && answer.status !== 304)
    headers["content-length"] = String(Buffer.byteLength(answer.body));
  outgoing.writeHead(answer.status, headers);
  outgoing.end(answer.body);
}

/** @param {string} code @param {string} message */
function envelope(status, code, message) {
  return Response.json({ error: { code, message } }, { status });
}

/**
 * @param {{ distDir: string, log?: (level: string, event: string, fields?: object) => void }} options
 */
export function createDataPlane({ distDir, log = () => undefined }) {
  const routes = readRoutes(distDir);
  const headersFor = readHeaderRules(distDir);
  /** @type {Map<string, Promise<Record<string, unknown>>>} */
  const loading = new Map();
  /** @type {Map<string, Record<string, unknown>>} */
  const loaded = new Map();

  function load(route) {
    let pending = loading.get(route.page);
    if (!pending) {
      pending = loadHandlers(route).then((handlers) => (loaded.set(route.page, handlers), handlers));
      // A module that failed to load is tried again by the next request (Next does the same).
      pending.catch(() => loading.delete(route.page));
      loading.set(route.page, pending);
    }
    return pending;
  }

  /** The handler and params of a request this plane serves, or null (then Next serves it). */
  async function claim(req) {
    const authorization = req.headers.authorization;
    if (!authorization || !BEARER.test(authorization)) return null;
    const target = req.url ?? "/";
    const q = target.indexOf("?");
    const pathname = q < 0 ? target : target.slice(0, q);
    if (!DATA_PLANE_PREFIXES.some((prefix) => pathname.startsWith(prefix)) || pathname.endsWith("/")) return null;
    let match;
    try {
      match = matchRoute(routes, pathname);
    } catch {
      return null; // not percent-decodable: the method gate or Next answers it
    }
    if (!match) return null;
    const handlers = loaded.get(match.route.page) ?? (await load(match.route));
    const handler = handlers[req.method ?? "GET"];
    if (typeof handler !== "function") return null;
    return { handler, params: match.params, pathname };
  }

  const listener = getRequestListener(
    async (request, env) => {
      const { handler, params, pathname } = env.incoming[CLAIM];
      const entry = handler[ANSWER_ENTRY] ?? handler;
      let response = await entry(request, { params: Promise.resolve(params) });
      const extra = headersFor(pathname);
      if (response?.[JSON_ANSWER]) {
        writeJsonAnswer(env.outgoing, response, extra);
        return RESPONSE_ALREADY_SENT;
      }
      if (extra.length) {
        try {
          for (const [key, value] of extra) if (!response.headers.has(key)) response.headers.set(key, value);
        } catch {
          // Immutable headers (a fetched or redirect Response): copy it once.
          response = new Response(response.body, response);
          for (const [key, value] of extra) if (!response.headers.has(key)) response.headers.set(key, value);
        }
      }
      return response;
    },
    {
      // Next shares this process: the global Request and Response stay the platform's.
      overrideGlobalObjects: false,
      errorHandler: (error) => {
        // handle() turns every error into its envelope: reaching here is a bug, said once, never a stack to the client.
        log("error", "data_plane.unhandled", { error: error instanceof Error ? error.name : "unknown" });
        return envelope(500, "internal_error", "Internal error.");
      },
    },
  );

  return {
    routes,
    /** Serves the request and resolves true, or resolves false for Next to serve it. */
    async serve(req, res) {
      const claimed = await claim(req);
      if (!claimed) return false;
      req[CLAIM] = claimed;
      await listener(req, res);
      return true;
    },
    /** Loads one route module: a build this plane cannot read stops the server at start, not at a first call. */
    async check() {
      if (!routes.length) throw new Error("the build has no /v1 or /mcp route: is it a Guichet build?");
      await load(routes[0]);
    },
    /** Loads every route module now (start-up), so no first caller waits for one. */
    async preload() {
      await Promise.all(routes.map(load));
    },
  };
}
