// The data plane's route table, read from the build Next itself serves: the
// `app/**/route.js` modules listed in `app-paths-manifest.json` under /v1 and
// /mcp, and the response headers of `routes-manifest.json` (next.config.ts's
// `headers()`: the security headers). Nothing is declared twice, so a path
// cannot exist on one plane only: a route that is not in the build is not on
// either plane, and one that is answers the same handler on both.
import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import path from "node:path";

const require = createRequire(import.meta.url);

/** Prefixes the data plane serves (bearer callers only; everything else stays with Next). */
export const DATA_PLANE_PREFIXES = ["/v1/", "/mcp/"];

/**
 * One segment of a route's pattern: a literal, a `[param]` or a `[...catchAll]`.
 * @typedef {{ kind: "static", value: string } | { kind: "param", name: string } | { kind: "catchAll", name: string }} Segment
 * @typedef {{ page: string, file: string, segments: Segment[] }} Route
 */

/** @param {string} raw */
function segmentOf(raw) {
  const catchAll = /^\[\.\.\.([A-Za-z0-9_]+)\]$/.exec(raw);
  if (catchAll) return { kind: "catchAll", name: catchAll[1] };
  const param = /^\[([A-Za-z0-9_]+)\]$/.exec(raw);
  if (param) return { kind: "param", name: param[1] };
  return { kind: "static", value: raw };
}

const RANK = { static: 0, param: 1, catchAll: 2 };

/** Next's precedence: at the first segment where two routes differ, a literal beats a [param], which beats a [...catchAll]. */
function byPrecedence(a, b) {
  for (let i = 0; i < Math.max(a.segments.length, b.segments.length); i++) {
    const sa = a.segments[i];
    const sb = b.segments[i];
    if (!sa) return -1;
    if (!sb) return 1;
    const diff = RANK[sa.kind] - RANK[sb.kind];
    if (diff) return diff;
  }
  return 0;
}

/**
 * The /v1 and /mcp route handlers of a build, most specific first.
 * @param {string} distDir absolute build folder (`.next`, or $GUICHET_DIST_DIR)
 * @returns {Route[]}
 */
export function readRoutes(distDir) {
  const manifest = JSON.parse(readFileSync(path.join(distDir, "server", "app-paths-manifest.json"), "utf8"));
  const routes = [];
  for (const [page, file] of Object.entries(manifest)) {
    if (!page.endsWith("/route")) continue;
    const pathname = page.slice(0, -"/route".length);
    if (!DATA_PLANE_PREFIXES.some((prefix) => pathname.startsWith(prefix))) continue;
    routes.push({
      page,
      file: path.join(distDir, "server", file),
      segments: pathname.split("/").slice(1).map(segmentOf),
    });
  }
  return routes.sort(byPrecedence);
}

/**
 * The route a path names and its decoded params (as Next hands them), or null.
 * @param {Route[]} routes
 * @param {string} pathname raw (percent-encoded) path
 */
export function matchRoute(routes, pathname) {
  const parts = pathname.split("/").slice(1);
  for (const route of routes) {
    const params = {};
    let ok = true;
    for (let i = 0; i < route.segments.length && ok; i++) {
      const segment = route.segments[i];
      if (segment.kind === "catchAll") {
        if (i >= parts.length) ok = false;
        else params[segment.name] = parts.slice(i).map(decodeURIComponent);
        break;
      }
      if (i >= parts.length) ok = false;
      else if (segment.kind === "static") ok = parts[i] === segment.value;
      else params[segment.name] = decodeURIComponent(parts[i]);
    }
    const last = route.segments.at(-1);
    if (ok && (last?.kind === "catchAll" || parts.length === route.segments.length)) return { route, params };
  }
  return null;
}

/**
 * A route's handlers: the compiled module Next loads for it (same file, same
 * module instance through Node's require cache), whose `routeModule.userland`
 * holds the route file's exports (GET, POST…) once `ensureUserland()` has
 * loaded them (Next loads a route's code lazily, and so does this).
 * @param {Route} route
 * @returns {Promise<Record<string, unknown>>}
 */
export async function loadHandlers(route) {
  const mod = await require(route.file);
  const routeModule = mod?.routeModule;
  if (typeof routeModule?.ensureUserland !== "function")
    throw new Error(`${route.page}: the build's module is not an app route module (routeModule.ensureUserland)`);
  await routeModule.ensureUserland();
  return routeModule.userland;
}

/**
 * The response headers next.config.ts's `headers()` gives a path, as Next applies them (routes-manifest.json).
 * @param {string} distDir
 * @returns {(pathname: string) => [string, string][]}
 */
export function readHeaderRules(distDir) {
  const manifest = JSON.parse(readFileSync(path.join(distDir, "routes-manifest.json"), "utf8"));
  const rules = (manifest.headers ?? []).map((rule) => ({
    regex: new RegExp(rule.regex),
    // Rules with `has`/`missing` conditions would need the request: none exist, and one added later is refused here.
    conditional: Boolean(rule.has || rule.missing),
    headers: rule.headers.map(({ key, value }) => [key.toLowerCase(), value]),
  }));
  if (rules.some((rule) => rule.conditional))
    throw new Error("next.config.ts headers() with has/missing conditions: the data plane does not apply them yet");
  const cache = new Map();
  return (pathname) => {
    let found = cache.get(pathname);
    if (found) return found;
    found = rules.filter((rule) => rule.regex.test(pathname)).flatMap((rule) => rule.headers);
    if (cache.size < 1000) cache.set(pathname, found);
    return found;
  };
}
