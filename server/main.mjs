// Guichet's production server: one process, one port, two planes. Next runs in
// its documented custom-server mode (`next({ dev: false })` and its request
// handler) for the console, sign-in, cookie calls and /api; agent traffic
// (bearer calls to /v1 and /mcp) goes to the same compiled route handlers
// through server/data-plane.mjs, without Next's request pipeline.
//
// `app.prepare()` runs instrumentation.ts once, as `next start` does: the
// environment check, the method gate (it wraps Node's request event, so it
// stands in front of both planes) and the background jobs.
//
// SIGTERM or SIGINT: the port stops accepting (new connections are refused),
// idle kept-alive connections close, requests in flight finish (up to
// GUICHET_SHUTDOWN_GRACE_MS, 10 s by default, then their connections are cut),
// the background work stops, and the process exits.
//
// Usage: node server/main.mjs [-p PORT] [-H HOST]   (or $PORT / $HOST)
import http from "node:http";
import path from "node:path";
import { fileURLToPath } from "node:url";
import next from "next";
import { createDataPlane } from "./data-plane.mjs";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");

function argument(flag) {
  const i = process.argv.indexOf(flag);
  return i > 0 ? process.argv[i + 1] : undefined;
}

const port = Number(argument("-p") ?? process.env.PORT ?? 3000);
const host = argument("-H") ?? process.env.HOST ?? "127.0.0.1";
const graceMs = Number(process.env.GUICHET_SHUTDOWN_GRACE_MS ?? 10_000);
// Production always: the build is served, never compiled on demand.
process.env.NODE_ENV = "production";
process.env.NEXT_TELEMETRY_DISABLED ??= "1";

function log(level, event, fields = {}) {
  const line = JSON.stringify({ level, event, ...fields });
  if (level === "error") console.error(line);
  else if (process.env.GUICHET_LOG_LEVEL !== "silent") console.log(line);
}

const app = next({ dev: false, dir: root, hostname: host, port });
const nextHandler = app.getRequestHandler();

const distDir = path.resolve(root, process.env.GUICHET_DIST_DIR ?? ".next");
const plane = createDataPlane({ distDir, log });
// As `next start` does with preloadEntriesOnStart: no first caller waits for a route to load. Before
// `prepare()`, which starts the background jobs: loading the routes opens their database client, and on
// SQLite two clients opening write transactions in the same instant can leave one of them locked out.
if (process.env.GUICHET_PRELOAD_ROUTES !== "0") await plane.preload();
else await plane.check();
await app.prepare();

let inFlight = 0;
let draining = null;
let stopping = false;

const server = http.createServer((req, res) => {
  inFlight++;
  res.once("close", () => {
    inFlight--;
    if (stopping) {
      server.closeIdleConnections();
      if (inFlight === 0) draining?.();
    }
  });
  // While stopping, each answer closes its connection: the client opens its next request elsewhere.
  if (stopping) res.shouldKeepAlive = false;
  plane
    .serve(req, res)
    .then((served) => served || nextHandler(req, res))
    .catch((error) => {
      log("error", "server.request_failed", { error: error instanceof Error ? error.name : "unknown" });
      if (!res.headersSent) res.writeHead(500).end();
      else res.destroy();
    });
});

/** The background work's own stop (lib/jobs/start.ts publishes it), awaited with a bound. */
async function stopBackgroundWork() {
  const stop = globalThis[Symbol.for("guichet.stopBackgroundWork")];
  if (typeof stop !== "function") return;
  await Promise.race([Promise.resolve(stop()).catch(() => undefined), new Promise((r) => setTimeout(r, graceMs))]);
}

async function shutdown(signal) {
  if (stopping) return;
  stopping = true;
  log("info", "server.stopping", { signal, in_flight: inFlight });
  const closed = new Promise((resolve) => server.close(() => resolve()));
  server.closeIdleConnections();
  if (inFlight > 0) {
    const drained = new Promise((resolve) => (draining = resolve));
    const timer = new Promise((resolve) => setTimeout(() => resolve("timeout"), graceMs).unref());
    if ((await Promise.race([drained, timer])) === "timeout") {
      log("warn", "server.grace_expired", { in_flight: inFlight });
      server.closeAllConnections();
    }
  }
  await closed;
  await stopBackgroundWork();
  await app.close?.().catch(() => undefined);
  log("info", "server.stopped", { signal });
  process.exit(0);
}
process.once("SIGTERM", () => void shutdown("SIGTERM"));
process.once("SIGINT", () => void shutdown("SIGINT"));

server.listen(port, host, () => {
  log("info", "server.listening", { host, port, data_plane_routes: plane.routes.length });
});
