import { spawn, spawnSync, type ChildProcess } from "node:child_process";
import { chownSync, existsSync, mkdirSync, readdirSync, writeFileSync } from "node:fs";
import path from "node:path";
import { freePort } from "@/tests/api/server";

// The harness's own infrastructure, so that it can stop and restart it as
// faults without touching the machine's shared services: a PostgreSQL cluster
// in a temporary folder (initdb + pg_ctl, run as the `postgres` user when the
// harness is root, since PostgreSQL refuses to run as root), a redis-server,
// and HAProxy in front of the Guichet instances.

/** Debian's PostgreSQL server binaries (initdb, pg_ctl): the newest installed major version. */
const PG_BIN =
  process.env.CHAOS_PG_BIN ??
  (existsSync("/usr/lib/postgresql")
    ? `/usr/lib/postgresql/${readdirSync("/usr/lib/postgresql").sort((a, b) => Number(b) - Number(a))[0]}/bin`
    : "/usr/lib/postgresql/15/bin");
const HAPROXY = process.env.CHAOS_HAPROXY ?? "/usr/sbin/haproxy";
const isRoot = process.getuid?.() === 0;

function asPostgres(command: string, args: string[]): [string, string[]] {
  return isRoot ? ["runuser", ["-u", "postgres", "--", command, ...args]] : [command, args];
}

function runSync(command: string, args: string[]): void {
  const [cmd, argv] = asPostgres(command, args);
  const result = spawnSync(cmd, argv, { encoding: "utf8" });
  if (result.status !== 0)
    throw new Error(`${command} ${args.join(" ")} failed (${result.status}):\n${result.stdout}${result.stderr}`);
}

/** Debian's HAProxy, installed when missing and root (as npm test does for Chromium and Prometheus). */
export function ensureHaproxy(): void {
  if (existsSync(HAPROXY)) return;
  if (!isRoot)
    throw new Error(`HAProxy is missing at ${HAPROXY}: sudo apt-get install -y haproxy (or set CHAOS_HAPROXY).`);
  for (const args of [
    ["update", "-qq"],
    ["install", "-y", "-qq", "haproxy"],
  ]) {
    const result = spawnSync("apt-get", args, {
      stdio: "inherit",
      env: { ...process.env, DEBIAN_FRONTEND: "noninteractive" },
    });
    if (result.status !== 0) throw new Error("apt-get install haproxy failed");
  }
}

export interface Postgres {
  /** The harness database's URL. */
  url: string;
  /** An immediate stop (what a crash looks like to clients), `downMs` without a server, then a start. */
  restart(downMs: number): Promise<void>;
  stop(): void;
}

export async function startPostgres(dir: string): Promise<Postgres> {
  const data = path.join(dir, "pg");
  mkdirSync(data, { recursive: true });
  if (isRoot) {
    const uid = Number(spawnSync("id", ["-u", "postgres"], { encoding: "utf8" }).stdout.trim());
    const gid = Number(spawnSync("id", ["-g", "postgres"], { encoding: "utf8" }).stdout.trim());
    chownSync(dir, uid, gid);
    chownSync(data, uid, gid);
  }
  const port = await freePort();
  runSync(path.join(PG_BIN, "initdb"), ["-D", data, "-A", "trust", "-U", "postgres", "--no-sync", "-E", "UTF8"]);
  // fsync off: what a commit wrote reaches the system's cache, not the disk, which a `pg_ctl stop -m immediate`
  // (the server's processes killed, the machine up) loses nothing of. synchronous_commit stays on, as in
  // production: with it off, the restart loses the last commits the clients were told of (decisions answered
  // 200, operations whose write the service then applied), which Guichet never promises to survive.
  const options = `-p ${port} -k ${data} -c listen_addresses=127.0.0.1 -c fsync=off -c max_connections=400`;
  const start = () =>
    runSync(path.join(PG_BIN, "pg_ctl"), [
      "-D",
      data,
      "-l",
      path.join(data, "server.log"),
      "-o",
      options,
      "-w",
      "start",
    ]);
  const stop = (mode: "fast" | "immediate") =>
    runSync(path.join(PG_BIN, "pg_ctl"), ["-D", data, "-m", mode, "-w", "stop"]);
  start();
  const { default: pg } = await import("pg");
  const admin = new pg.Client({ connectionString: `postgresql://postgres@127.0.0.1:${port}/postgres` });
  await admin.connect();
  await admin.query(`CREATE DATABASE guichet`);
  await admin.end();
  return {
    url: `postgresql://postgres@127.0.0.1:${port}/guichet`,
    async restart(downMs) {
      stop("immediate");
      await sleep(downMs);
      start();
    },
    stop: () => {
      try {
        stop("fast");
      } catch {
        // already down
      }
    },
  };
}

/** A child process that is stopped by the harness, its output kept for a failure's report. */
function daemon(
  command: string,
  args: string[],
  env?: NodeJS.ProcessEnv,
): { child: ChildProcess; output: () => string } {
  let output = "";
  const child = spawn(command, args, { stdio: ["ignore", "pipe", "pipe"], env: env ?? process.env });
  child.stdout!.on("data", (chunk) => (output = (output + chunk).slice(-20_000)));
  child.stderr!.on("data", (chunk) => (output = (output + chunk).slice(-20_000)));
  return { child, output: () => output };
}

async function stopChild(child: ChildProcess, signal: NodeJS.Signals = "SIGTERM"): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const closed = new Promise((resolve) => child.once("close", resolve));
  child.kill(signal);
  await closed;
}

async function waitForPort(port: number, what: string, output: () => string): Promise<void> {
  const { connect } = await import("node:net");
  const deadline = Date.now() + 15_000;
  while (Date.now() < deadline) {
    const open = await new Promise<boolean>((resolve) => {
      const socket = connect(port, "127.0.0.1");
      socket.once("connect", () => (socket.destroy(), resolve(true)));
      socket.once("error", () => resolve(false));
    });
    if (open) return;
    await sleep(50);
  }
  throw new Error(`${what} did not listen on ${port}:\n${output()}`);
}

export interface RedisServer {
  url: string;
  stop(): Promise<void>;
  start(): Promise<void>;
}

export async function startRedis(dir: string): Promise<RedisServer> {
  const port = await freePort();
  let current: ReturnType<typeof daemon> | null = null;
  const start = async () => {
    current = daemon("redis-server", [
      "--port",
      String(port),
      "--bind",
      "127.0.0.1",
      "--save",
      "",
      "--appendonly",
      "no",
      "--dir",
      dir,
    ]);
    await waitForPort(port, "redis-server", current.output);
  };
  await start();
  return {
    url: `redis://127.0.0.1:${port}`,
    start,
    async stop() {
      if (current) await stopChild(current.child);
      current = null;
    },
  };
}

export interface LoadBalancer {
  baseUrl: string;
  stop(): Promise<void>;
}

/**
 * HAProxy over the instances: round robin, health-checked on /api/health every 500 ms. It retries a
 * request elsewhere only when the connection could not be made (HAProxy's default `retry-on
 * conn-failure`): a request an instance received is never sent twice by the balancer.
 */
export async function startHaproxy(dir: string, instancePorts: number[]): Promise<LoadBalancer> {
  const port = await freePort();
  const config = path.join(dir, "haproxy.cfg");
  writeFileSync(
    config,
    [
      "global",
      "  maxconn 4000",
      "defaults",
      "  mode http",
      "  timeout connect 2s",
      "  timeout client 150s",
      "  timeout server 150s",
      "  retries 3",
      "  option redispatch",
      `frontend guichet`,
      `  bind 127.0.0.1:${port}`,
      "  default_backend instances",
      "backend instances",
      "  balance roundrobin",
      "  option httpchk GET /api/health",
      ...instancePorts.map((p, i) => `  server g${i + 1} 127.0.0.1:${p} check inter 500 fall 2 rise 1`),
      "",
    ].join("\n"),
  );
  const proxy = daemon(HAPROXY, ["-f", config, "-db"]);
  await waitForPort(port, "HAProxy", proxy.output);
  return { baseUrl: `http://127.0.0.1:${port}`, stop: () => stopChild(proxy.child) };
}

export const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
