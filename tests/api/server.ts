import { spawn, type ChildProcess } from "node:child_process";
import { randomBytes } from "node:crypto";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { createServer } from "node:net";
import os from "node:os";
import path from "node:path";
import { startTestServer } from "@/tests/support/http-server";

/**
 * The network settings of every test server: `.test` names resolve to 127.0.0.1
 * and count as public (so web_fetch is tested on the public path against local
 * pages), honoured only because GUICHET_TEST_STACK is set. `*.alt.test` names go
 * to 127.0.0.2, for a second CRM Acme: bound there, it accepts Host names other
 * than loopback ones. No loopback switch: private origins are allowlisted one by
 * one (CRM Acme) by the caller.
 */
export function testNetwork(): Record<string, string> {
  return { GUICHET_TEST_STACK: "1", GUICHET_TEST_HOSTS: "*.alt.test=127.0.0.2,*.test=127.0.0.1" };
}

/**
 * Outbox timings of every test server: a poll every 500 ms, the first retry after 300 ms, 5 s for an
 * attempt (a loaded test machine must not turn a slow answer into a retry), and an endpoint disabled after four failures in a row, so retries,
 * timeouts and disabling are seen in seconds. Every instance on one database gets the same.
 */
export function outboxTimings(): Record<string, string> {
  return {
    GUICHET_OUTBOX_POLL_MS: "500",
    GUICHET_WEBHOOK_RETRY_BASE_MS: "300",
    GUICHET_WEBHOOK_TIMEOUT_MS: "5000",
    GUICHET_WEBHOOK_DISABLE_AFTER: "4",
  };
}

/** A page server's origin under a public-looking test name: http://127.0.0.1:PORT → http://NAME.test:PORT. */
export function publicTestOrigin(origin: string, name = "page"): string {
  const url = new URL(origin);
  return `http://${name}.test:${url.port}`;
}

/** A free TCP port on loopback. */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.listen(0, "127.0.0.1", () => {
      const address = server.address();
      server.close(() =>
        typeof address === "object" && address ? resolve(address.port) : reject(new Error("no port")),
      );
    });
  });
}

export interface SearchHit {
  title: string;
  url: string;
  content: string;
}

export interface SearchBackend {
  /** The endpoint to set as GUICHET_SEARCH_URL, e.g. http://127.0.0.1:PORT/search. */
  url: string;
  /** Its origin, for GUICHET_PRIVATE_ORIGINS (the backend sits on loopback). */
  origin: string;
  /** ok: results; down: 503; garbage: a 200 whose body is not JSON. */
  setMode(mode: "ok" | "down" | "garbage"): void;
  /** How many searches it answered. */
  hits(): number;
  close(): Promise<void>;
}

/**
 * A SearXNG-compatible search backend (`GET /search?q=…&format=json` answers
 * `{results: [{title, url, content}]}`), so that web_search is configured, and
 * offered, on every test server that sets GUICHET_SEARCH_URL to it. `results`
 * picks the hits for a query (by default two about the query).
 */
export async function startSearchBackend(
  results: (query: string) => SearchHit[] = (query) => [
    { title: `Résultat pour ${query}`, url: "https://example.org/guichet", content: `À propos de ${query}.` },
    { title: "Deux", url: "https://example.org/deux", content: "Second." },
  ],
): Promise<SearchBackend> {
  let mode: "ok" | "down" | "garbage" = "ok";
  let hits = 0;
  const server = await startTestServer((req, res) => {
    hits++;
    const query = new URL(req.url ?? "/", "http://x").searchParams.get("q") ?? "";
    if (mode === "down") return res.writeHead(503).end("busy");
    if (mode === "garbage") return res.writeHead(200, { "content-type": "application/json" }).end("{not json");
    res.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify({ results: results(query) }));
  });
  return {
    url: `${server.origin}/search`,
    origin: server.origin,
    setMode: (next) => void (mode = next),
    hits: () => hits,
    close: server.close,
  };
}

export interface TestDatabase {
  url: string;
  dataDir: string;
  drop(): Promise<void>;
}

/** A fresh database: a new SQLite file, or a uniquely named PostgreSQL database dropped afterwards. */
export async function createTestDatabase(kind: "sqlite" | "postgresql"): Promise<TestDatabase> {
  const dataDir = mkdtempSync(path.join(os.tmpdir(), "guichet-test-"));
  writeFileSync(path.join(dataDir, "auth-secret"), randomBytes(32).toString("hex"));
  if (kind === "sqlite") {
    return {
      url: `file:${path.join(dataDir, "guichet.sqlite")}`,
      dataDir,
      drop: async () => rmSync(dataDir, { recursive: true, force: true }),
    };
  }
  const { default: pg } = await import("pg");
  const admin = process.env.TEST_PG_ADMIN_URL ?? "postgresql://postgres@127.0.0.1:5432/postgres";
  const name = `guichet_test_${process.pid}_${Date.now()}_${randomBytes(3).toString("hex")}`;
  const client = new pg.Client({ connectionString: admin });
  await client.connect();
  await client.query(`CREATE DATABASE "${name}"`);
  await client.end();
  const url = new URL(admin);
  url.pathname = `/${name}`;
  return {
    url: url.toString(),
    dataDir,
    async drop() {
      const dropper = new pg.Client({ connectionString: admin });
      await dropper.connect();
      await dropper.query(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`);
      await dropper.end();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

export async function run(command: string, args: string[], env: NodeJS.ProcessEnv): Promise<string> {
  const child = spawn(command, args, { env, stdio: ["ignore", "pipe", "pipe"] });
  let output = "";
  child.stdout.on("data", (chunk) => (output += chunk));
  child.stderr.on("data", (chunk) => (output += chunk));
  const code = await new Promise<number | null>((resolve) => child.on("close", resolve));
  if (code !== 0) throw new Error(`${command} ${args.join(" ")} failed (${code}):\n${output}`);
  return output;
}

export async function waitForHealth(
  baseUrl: string,
  child: ChildProcess,
  log: () => string,
  timeoutMs = 60_000,
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (child.exitCode !== null) throw new Error(`server exited early:\n${log()}`);
    try {
      const response = await fetch(`${baseUrl}/api/health`);
      // Read to the end: a response left unread keeps its connection busy, and `next start` then waits
      // seconds for it before it exits on SIGTERM.
      await response.text();
      if (response.ok) return;
    } catch {
      // not listening yet
    }
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
  throw new Error(`server did not become healthy in ${timeoutMs} ms:\n${log()}`);
}

/**
 * The production server (server/main.mjs: Next for the console, the data plane for bearer calls) on the
 * existing build, its own port and database. `GUICHET_SERVER=next` in `env` starts plain `next start`
 * instead (every request through Next), for the tests that compare the two planes. Routes load on their
 * first request (GUICHET_PRELOAD_ROUTES=0, unless `env` says otherwise): an extra instance serves a few of
 * them, and loading them all would hold its start for seconds.
 */
export async function startApp(
  env: NodeJS.ProcessEnv,
  fixedPort?: number,
): Promise<{
  baseUrl: string;
  stop(): Promise<void>;
  crash(): Promise<void>;
  log(): string;
  /** The server's process id (a test that sends it a signal itself). */
  pid: number;
  /** Resolves when the process has exited. */
  exited: Promise<void>;
}> {
  const port = fixedPort ?? (await freePort());
  const baseUrl = `http://127.0.0.1:${port}`;
  let output = "";
  const entry = env.GUICHET_SERVER === "next" ? ["node_modules/next/dist/bin/next", "start"] : ["server/main.mjs"];
  const child = spawn(
    process.execPath,
    // BENCH_APP_NODE_ARGS: Node flags for the server alone (`--cpu-prof --cpu-prof-dir=…` to profile a bench).
    [...(env.BENCH_APP_NODE_ARGS?.split(" ").filter(Boolean) ?? []), ...entry, "-p", String(port), "-H", "127.0.0.1"],
    {
      env: {
        GUICHET_PRELOAD_ROUTES: "0",
        // Operations left running are looked for every second on every test instance (the sweep is one job for
        // the database: whichever instance runs it schedules the next by its own interval, so one instance on the
        // default minute would pause it for all), and swept only past a day: the test that wants one swept ages
        // it past that (tests/api/operations-sweep.test.ts), while what other files leave running is never
        // touched — a sweep of it would hold its target's write lock (CRM Acme's shared customers) while it asks
        // the status tool, and refuse another file's commit on that target meanwhile.
        GUICHET_OPERATION_SWEEP_MS: "1000",
        GUICHET_OPERATION_STALE_MS: "86400000",
        ...env,
        NEXTAUTH_URL: baseUrl,
        NEXT_TELEMETRY_DISABLED: "1",
      },
      stdio: ["ignore", "pipe", "pipe"],
    },
  );
  child.stdout!.on("data", (chunk) => (output += chunk));
  child.stderr!.on("data", (chunk) => (output += chunk));
  const exited = new Promise<void>((resolve) => child.once("close", () => resolve()));
  try {
    await waitForHealth(baseUrl, child, () => output);
  } catch (error) {
    // A server that never became healthy is not left running behind the error.
    child.kill("SIGKILL");
    throw error;
  }
  return {
    baseUrl,
    pid: child.pid!,
    exited,
    log: () => output,
    async stop() {
      // A process killed by a signal has no exit code, only its signal: it is gone all the same.
      if (child.exitCode !== null || child.signalCode !== null) return;
      child.kill("SIGTERM");
      await new Promise((resolve) => child.on("close", resolve));
    },
    /** SIGKILL: the process dies where it stands, with no chance to record anything. */
    async crash() {
      if (child.exitCode !== null || child.signalCode !== null) return;
      const closed = new Promise((resolve) => child.on("close", resolve));
      child.kill("SIGKILL");
      await closed;
    },
  };
}
