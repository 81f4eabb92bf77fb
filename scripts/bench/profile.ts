// npm run bench:profile — where the server's CPU goes on the calls agents make
// most. One test stack (production build, TEST_DB picks the database), the
// server started with the inspector on loopback; for each scenario: untimed
// warm-up, then a measure of the server's own CPU time per request
// (process.cpuUsage() read through the inspector before and after; it does not
// depend on what else shares the cores, unlike requests per second), then a
// sampled CPU profile under the same load, summarized as the functions with the
// most self time. Profiles are written to PROFILE_DIR (default
// test-results/profiles) for Chrome DevTools or speedscope.
//
// PROFILE_ONLY=<substring> keeps matching scenarios; PROFILE_SECONDS (4) is the
// length of each measure; PROFILE_TOP (25) the number of functions printed.
import { mkdirSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { SourceMap } from "node:module";
import path from "node:path";
import autocannon from "autocannon";
import WebSocket from "ws";
import { freePort } from "@/tests/api/server";
import { startTestStack, type TestStack } from "../test-stack";
import type { BenchRequest, BenchScenario } from "./main";

const SECONDS = Number(process.env.PROFILE_SECONDS ?? 4);
const TOP = Number(process.env.PROFILE_TOP ?? 25);
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 10);
const OUT = process.env.PROFILE_DIR ?? "test-results/profiles";

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number; columnNumber: number };
  hitCount?: number;
  children?: number[];
}
interface CpuProfile {
  nodes: ProfileNode[];
  startTime: number;
  endTime: number;
  samples?: number[];
  timeDeltas?: number[];
}

/** A minimal Chrome DevTools Protocol client over the inspector's WebSocket. */
async function inspector(port: number) {
  const targets = (await (await fetch(`http://127.0.0.1:${port}/json/list`)).json()) as {
    webSocketDebuggerUrl: string;
  }[];
  const socket = new WebSocket(targets[0].webSocketDebuggerUrl);
  await new Promise((resolve, reject) => (socket.once("open", resolve), socket.once("error", reject)));
  let id = 0;
  const pending = new Map<number, (message: { result?: unknown; error?: unknown }) => void>();
  socket.on("message", (data) => {
    const message = JSON.parse(String(data)) as { id?: number; result?: unknown; error?: unknown };
    if (message.id !== undefined) pending.get(message.id)?.(message);
  });
  async function send<T>(method: string, params: object = {}): Promise<T> {
    const messageId = ++id;
    const answer = await new Promise<{ result?: unknown; error?: unknown }>((resolve) => {
      pending.set(messageId, resolve);
      socket.send(JSON.stringify({ id: messageId, method, params }));
    });
    pending.delete(messageId);
    if (answer.error) throw new Error(`${method}: ${JSON.stringify(answer.error)}`);
    return answer.result as T;
  }
  return {
    send,
    /** The server's CPU time so far (user + system), in microseconds. */
    async cpuMicros(): Promise<number> {
      const { result } = await send<{ result: { value: number } }>("Runtime.evaluate", {
        expression: "(() => { const u = process.cpuUsage(); return u.user + u.system; })()",
        returnByValue: true,
      });
      return result.value;
    },
    close: () => socket.close(),
  };
}

async function load(baseUrl: string, request: BenchRequest, seconds: number) {
  const dynamicBody = typeof request.body === "function" ? request.body : undefined;
  const result = await autocannon({
    url: baseUrl + request.path,
    method: request.method ?? "GET",
    headers: { ...(request.body ? { "content-type": "application/json" } : {}), ...request.headers },
    body: typeof request.body === "string" ? request.body : undefined,
    requests: dynamicBody ? [{ setupRequest: (req) => ({ ...req, body: dynamicBody() }) }] : undefined,
    connections: CONNECTIONS,
    duration: seconds,
  });
  return { total: result.requests.total, rps: result.requests.average, p50: result.latency.p50, bad: result.non2xx };
}

/** Positions in the build's chunks read back to the source (the build writes source maps next to its chunks). */
const maps = new Map<string, SourceMap | null>();
function original(frame: ProfileNode["callFrame"]): { file: string; line: number; ours: boolean } {
  const url = frame.url.replace(/^file:\/\//, "");
  let file = url.replace(process.cwd() + "/", "");
  let line = frame.lineNumber + 1;
  if (url.includes("/server/chunks/") || url.includes("/server/app/")) {
    if (!maps.has(url)) {
      let map: SourceMap | null = null;
      try {
        map = new SourceMap(JSON.parse(readFileSync(url + ".map", "utf8")));
      } catch {
        map = null;
      }
      maps.set(url, map);
    }
    const entry = maps.get(url)?.findEntry(frame.lineNumber, frame.columnNumber) as
      { originalSource?: string; originalLine?: number } | undefined;
    if (entry?.originalSource) {
      file = entry.originalSource.replace(/^(\.\.\/)+/, "").replace(/^\[project\]\//, "");
      line = (entry.originalLine ?? 0) + 1;
    }
  }
  const ours = /^(lib|app|server|connectors)\//.test(file);
  return { file, line, ours };
}

function frameKey(node: ProfileNode): { key: string; ours: boolean } {
  const { functionName } = node.callFrame;
  if (!node.callFrame.url) return { key: functionName || "(native)", ours: false };
  const { file, line, ours } = original(node.callFrame);
  return { key: `${functionName || "(anonymous)"} ${file}:${line}`, ours };
}

/** Self time per function (name, source file, line), the largest first, as a share of the samples. */
function topFunctions(profile: CpuProfile, top: number) {
  const self = new Map<string, number>();
  let total = 0;
  for (const node of profile.nodes) {
    const hits = node.hitCount ?? 0;
    if (!hits) continue;
    total += hits;
    const { key } = frameKey(node);
    self.set(key, (self.get(key) ?? 0) + hits);
  }
  return [...self.entries()]
    .sort((a, b) => b[1] - a[1])
    .slice(0, top)
    .map(([name, hits]) => ({ name, share: hits / total }));
}

/** Total time (self and callees) of our own functions: where a request's time goes, by what it does. */
function inclusiveOurs(profile: CpuProfile, top: number) {
  const parent = new Map<number, ProfileNode>();
  const byId = new Map<number, ProfileNode>();
  for (const node of profile.nodes) {
    byId.set(node.id, node);
    for (const child of node.children ?? []) parent.set(child, node);
  }
  const keys = new Map<number, { key: string; ours: boolean }>();
  const inclusive = new Map<string, number>();
  let total = 0;
  for (const node of profile.nodes) {
    const hits = node.hitCount ?? 0;
    if (!hits) continue;
    total += hits;
    const seen = new Set<string>();
    for (let at: ProfileNode | undefined = node; at; at = parent.get(at.id)) {
      let k = keys.get(at.id);
      if (!k) keys.set(at.id, (k = frameKey(at)));
      if (k.ours && !seen.has(k.key)) {
        seen.add(k.key);
        inclusive.set(k.key, (inclusive.get(k.key) ?? 0) + hits);
      }
    }
  }
  return [...inclusive.entries()]
    .sort((a, b) => b[1] - a[1])
    .slice(0, top)
    .map(([name, hits]) => ({ name, share: hits / total }));
}

/** Self time grouped by where the code lives: our modules, a package, Node itself, the GC. */
function byOrigin(profile: CpuProfile) {
  const groups = new Map<string, number>();
  let total = 0;
  for (const node of profile.nodes) {
    const hits = node.hitCount ?? 0;
    if (!hits) continue;
    total += hits;
    const name = node.callFrame.functionName;
    let group: string;
    if (name === "(garbage collector)" || name === "(program)" || name === "(idle)") group = name;
    else if (node.callFrame.url.startsWith("node:")) group = "node core";
    else if (!node.callFrame.url) group = "(native)";
    else {
      const { file, ours } = original(node.callFrame);
      group = ours
        ? file.split("/").slice(0, 2).join("/")
        : (file.match(/node_modules\/(@[^/]+\/[^/]+|[^/]+)/)?.[1] ?? "other");
    }
    groups.set(group, (groups.get(group) ?? 0) + hits);
  }
  return [...groups.entries()].sort((a, b) => b[1] - a[1]).map(([group, hits]) => ({ group, share: hits / total }));
}

const bearer = (key: string) => ({ authorization: `Bearer ${key}` });

/** GET /v1/runs/{run} on the run the dispatch scenarios use. */
const runScenario: BenchScenario = {
  name: "GET /v1/runs/{run}",
  async prepare(stack, key) {
    const post = async (p: string, body: unknown) =>
      (await (
        await fetch(stack.baseUrl + p, {
          method: "POST",
          headers: { ...bearer(key), "content-type": "application/json" },
          body: JSON.stringify(body),
        })
      ).json()) as { data: { id: string } };
    const agent = await post("/v1/agents", { name: `Profile run ${Date.now()}`, tools: ["calculate"] });
    const run = await post("/v1/runs", { agent: agent.data.id });
    await post(`/v1/runs/${run.data.id}/tool_calls`, { tool: "calculate", arguments: { expression: "1 + 1" } });
    return { path: `/v1/runs/${run.data.id}`, headers: bearer(key) };
  },
};

async function main() {
  const inspectPort = await freePort();
  const limits = {
    GUICHET_RATE_LIMIT_PER_MINUTE: "100000000",
    GUICHET_RUN_CALLS_PER_MINUTE: "100000000",
    GUICHET_ORG_CALLS_PER_MINUTE: "100000000",
  };
  const { stack, stop } = await startTestStack({
    port: await freePort(),
    env: { GUICHET_BENCH: "1", BENCH_APP_NODE_ARGS: `--inspect=127.0.0.1:${inspectPort}`, ...limits },
  });
  Object.assign(process.env, {
    DATABASE_URL: stack.databaseUrl,
    GUICHET_DATA_DIR: stack.dataDir,
    GUICHET_LOG_LEVEL: "warn",
    ...limits,
  });
  const client = await inspector(inspectPort);
  mkdirSync(OUT, { recursive: true });
  const database = process.env.TEST_DB ?? "sqlite";
  try {
    const demoKey = readFileSync(`${stack.dataDir}/demo-api-key`, "utf8").trim();
    const { benchScenarios } = await import("./scenarios");
    const only = process.env.PROFILE_ONLY?.toLowerCase();
    const scenarios = [...benchScenarios, runScenario].filter((s) => !only || s.name.toLowerCase().includes(only));
    await client.send("Profiler.enable");
    await client.send("Profiler.setSamplingInterval", { interval: 200 });
    const summary: string[] = [];
    for (const scenario of scenarios) {
      const request = await scenario.prepare(stack as TestStack, demoKey);
      await load(stack.baseUrl, request, 1);
      const before = await client.cpuMicros();
      const measured = await load(stack.baseUrl, request, SECONDS);
      const cpu = (await client.cpuMicros()) - before;
      const perRequest = cpu / Math.max(measured.total, 1);
      await client.send("Profiler.start");
      await load(stack.baseUrl, request, SECONDS);
      const { profile } = await client.send<{ profile: CpuProfile }>("Profiler.stop");
      const slug = scenario.name
        .replace(/[^a-z0-9]+/gi, "-")
        .replace(/^-|-$/g, "")
        .toLowerCase();
      writeFileSync(path.join(OUT, `${database}-${slug}.cpuprofile`), JSON.stringify(profile));
      const line = `| ${scenario.name} | ${measured.rps.toFixed(0)} | ${measured.p50} | ${(perRequest / 1000).toFixed(3)} | ${measured.bad} |`;
      summary.push(line);
      console.log(`\n### ${scenario.name} (${database})\n`);
      console.log(
        `server CPU per request: ${(perRequest / 1000).toFixed(3)} ms (${measured.total} requests, ${measured.rps.toFixed(0)} req/s, p50 ${measured.p50} ms, non-2xx ${measured.bad})\n`,
      );
      printProfile("profile", profile);
    }
    console.log(`\n## Server CPU per request (${database}, ${CONNECTIONS} connections, ${SECONDS} s)\n`);
    console.log("| scenario | req/s | p50 ms | server CPU ms / request | non-2xx |\n|---|---|---|---|---|");
    for (const line of summary) console.log(line);
  } finally {
    client.close();
    await stop();
  }
}

/** `profile.ts <dir>`: the summaries of profiles written before, without a stack. */
function summarizeSaved(dir: string) {
  for (const file of readdirSync(dir).filter((f) => f.endsWith(".cpuprofile"))) {
    printProfile(file, JSON.parse(readFileSync(path.join(dir, file), "utf8")) as CpuProfile);
  }
}

function printProfile(title: string, profile: CpuProfile) {
  console.log(`\n#### ${title}\n`);
  console.log("| self | where |\n|---|---|");
  for (const g of byOrigin(profile)) console.log(`| ${(g.share * 100).toFixed(1)} % | ${g.group} |`);
  console.log("\n| self | function |\n|---|---|");
  for (const f of topFunctions(profile, TOP)) console.log(`| ${(f.share * 100).toFixed(1)} % | \`${f.name}\` |`);
  console.log("\n| total | our function (with what it calls) |\n|---|---|");
  for (const f of inclusiveOurs(profile, TOP)) console.log(`| ${(f.share * 100).toFixed(1)} % | \`${f.name}\` |`);
}

if (process.argv[2]) summarizeSaved(process.argv[2]);
else
  main().catch((error) => {
    console.error(error);
    process.exit(1);
  });
