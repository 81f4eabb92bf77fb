// npm run bench — throughput and latency of our endpoints on the production
// build, each next to a bare Next route handler and a raw node:http server
// returning the same number of bytes in the same run (the ratios are the
// figures: absolute numbers depend on the machine), and the latency Guichet
// adds to an MCP read against calling CRM Acme directly, at a fixed rate.
import { commaList } from "@/lib/comma-list";
import autocannon from "autocannon";
import { freePort } from "@/tests/api/server";
import { startTestStack, type TestStack } from "../test-stack";
import { benchScenarios } from "./scenarios";

const DURATION_S = Number(process.env.BENCH_SECONDS ?? 5);
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 10);
// Untimed load before each measure: the first requests of a route run its code unoptimized (JIT), and the scenario measured first paid for it.
const WARMUP_S = Number(process.env.BENCH_WARMUP_SECONDS ?? 1);

export interface BenchRequest {
  method?: "GET" | "POST" | "PATCH" | "DELETE";
  path: string;
  headers?: Record<string, string>;
  /** A fixed body, or one per request (unique names…). */
  body?: string | (() => string);
}

export interface BenchScenario {
  name: string;
  prepare(stack: TestStack, demoKey: string): Promise<BenchRequest>;
  /** Another scenario's name: its p50 is this one's reference, and the ratio of the two is printed after the table. */
  comparedTo?: string;
}

interface Figures {
  rps: number;
  p50: number;
  p99: number;
  errors: number;
  non2xx: number;
  bytes: number;
}

async function measure(baseUrl: string, request: BenchRequest, duration = DURATION_S, rate?: number): Promise<Figures> {
  const dynamicBody = typeof request.body === "function" ? request.body : undefined;
  const result = await autocannon({
    url: baseUrl + request.path,
    method: request.method ?? "GET",
    headers: { ...(request.body ? { "content-type": "application/json" } : {}), ...request.headers },
    body: typeof request.body === "string" ? request.body : undefined,
    requests: dynamicBody ? [{ setupRequest: (req) => ({ ...req, body: dynamicBody() }) }] : undefined,
    connections: CONNECTIONS,
    duration,
    // A fixed offered rate (requests per second, all connections together) instead of as fast as possible.
    ...(rate ? { overallRate: rate } : {}),
  });
  return {
    rps: result.requests.average,
    p50: result.latency.p50,
    p99: result.latency.p99,
    errors: result.errors + result.timeouts,
    non2xx: result.non2xx,
    bytes: Math.round(result.throughput.total / Math.max(result.requests.total, 1)),
  };
}

/** What a run on one database hands to the summary: each endpoint's ratios to the bare handler and to raw node:http, the dispatcher's overhead. */
interface DatabaseFigures {
  endpoints: { name: string; ratio: number; rawRatio?: number; p50: number }[];
  dispatcher: { tool: string; overhead_p50_ms: number }[];
  /** What OpenTelemetry tracing adds to the dispatcher's overhead (p50 ms). */
  tracing: { tool: string; added_p50_ms: number }[];
  /** Through Guichet minus CRM Acme directly, on an MCP read at a fixed rate. */
  addedLatency?: { p50_ms: number; p99_ms: number };
}
const figures: DatabaseFigures = { endpoints: [], dispatcher: [], tracing: [] };
const FIGURES_LINE = "BENCH_FIGURES ";

async function main() {
  if (!process.env.BENCH_DB) return compareDatabases();
  const limits = {
    GUICHET_RATE_LIMIT_PER_MINUTE: "100000000",
    GUICHET_RUN_CALLS_PER_MINUTE: "100000000",
    GUICHET_ORG_CALLS_PER_MINUTE: "100000000",
  };
  const { stack, stop } = await startTestStack({ port: await freePort(), env: { GUICHET_BENCH: "1", ...limits } });
  const stops: (() => void)[] = [];
  // This process reaches the same database for preparing data and the in-process measures.
  Object.assign(process.env, {
    DATABASE_URL: stack.databaseUrl,
    GUICHET_DATA_DIR: stack.dataDir,
    // The bench's own organizations (bench-…) call CRM Acme in process: granted to every organization here.
    GUICHET_PRIVATE_ORIGINS: `${new URL(stack.crmUrl).origin}=*`,
    GUICHET_LOG_LEVEL: "warn",
    ...limits,
  });
  try {
    const { readFileSync } = await import("node:fs");
    const demoKey = readFileSync(`${stack.dataDir}/demo-api-key`, "utf8").trim();
    console.log(
      `Benchmarks: ${CONNECTIONS} connections, ${DURATION_S} s each, ${process.env.TEST_DB ?? "sqlite"} database\n`,
    );
    console.log(
      "| endpoint | req/s | p50 ms | p99 ms | bare Next req/s | bare p50 | bare p99 | ÷ bare | raw node:http req/s | ÷ raw | non-2xx |",
    );
    console.log("|---|---|---|---|---|---|---|---|---|---|---|");
    const { startRawServer } = await import("./ceiling");
    const raw = await startRawServer();
    stops.push(raw.stop);
    const only = process.env.BENCH_ONLY?.toLowerCase();
    const p50s = new Map<string, number>();
    const scenarios = benchScenarios.filter((s) => !only || s.name.toLowerCase().includes(only));
    for (const scenario of scenarios) {
      const request = await scenario.prepare(stack, demoKey);
      const probe = await fetch(stack.baseUrl + request.path, {
        method: request.method ?? "GET",
        headers: { ...(request.body ? { "content-type": "application/json" } : {}), ...request.headers },
        body: typeof request.body === "function" ? request.body() : request.body,
      });
      const probeText = await probe.text();
      const size = Buffer.byteLength(probeText);
      const probeBody = JSON.parse(probeText) as { ok?: boolean };
      if (!probe.ok) throw new Error(`${scenario.name}: HTTP ${probe.status} before measuring`);
      if (probeBody.ok === false)
        throw new Error(`${scenario.name}: the tool call was refused before measuring: ${JSON.stringify(probeBody)}`);
      if (WARMUP_S > 0) await measure(stack.baseUrl, request, WARMUP_S);
      const ours = await measure(stack.baseUrl, request);
      p50s.set(scenario.name, ours.p50);
      const bare = await measure(stack.baseUrl, { path: `/api/bench/bare?bytes=${size}` });
      const ceiling = await measure(raw.baseUrl, { path: `/?bytes=${size}` });
      const ratio = ours.rps / bare.rps;
      const rawRatio = ours.rps / ceiling.rps;
      figures.endpoints.push({ name: scenario.name, ratio, rawRatio, p50: ours.p50 });
      console.log(
        `| ${scenario.name} | ${ours.rps.toFixed(0)} | ${ours.p50} | ${ours.p99} | ${bare.rps.toFixed(0)} | ${bare.p50} | ${bare.p99} | ${ratio.toFixed(2)} | ${ceiling.rps.toFixed(0)} | ${rawRatio.toFixed(3)} | ${ours.non2xx + ours.errors} |`,
      );
    }
    if (!only || "added latency".includes(only)) await addedLatency(stack, demoKey);
    const compared = scenarios.filter((s) => s.comparedTo && p50s.has(s.comparedTo));
    if (compared.length > 0) {
      console.log("\n| scenario | against | p50 ratio |\n|---|---|---|");
      for (const s of compared)
        console.log(
          `| ${s.name} | ${s.comparedTo} | ${((p50s.get(s.name) ?? 0) / (p50s.get(s.comparedTo as string) ?? 1)).toFixed(2)} |`,
        );
      await mcpInProcess(stack, demoKey);
    }
    if (!only || "managed runs".includes(only)) await managedRunMeasures(stack, demoKey);
    if (!only || "widget first token".includes(only))
      await (await import("./widget")).widgetFirstTokenMeasures(stack, demoKey);
    if (!only) await inProcessMeasures(stack);
    if (!only || "tracing".includes(only)) await tracingMeasures(stack);
  } finally {
    for (const s of stops) s();
    await stop();
  }
  console.log(FIGURES_LINE + JSON.stringify(figures));
}

/**
 * One run per database (BENCH_DATABASES, default both), each in its own process
 * (the database client is chosen at start), then their figures side by side.
 */
async function compareDatabases() {
  const { spawn, spawnSync } = await import("node:child_process");
  // The stack runs the production build in $GUICHET_DIST_DIR (.next): built first when missing or stale, as `npm start` does.
  const built = spawnSync(
    process.execPath,
    ["--input-type=module", "-e", `(await import("./scripts/setup.mjs")).ensureBuild();`],
    { stdio: "inherit" },
  );
  if (built.status !== 0) throw new Error("the production build failed");
  const databases = commaList(process.env.BENCH_DATABASES ?? "sqlite,postgresql");
  const results = new Map<string, DatabaseFigures>();
  for (const database of databases) {
    console.log(`\n## ${database === "postgresql" ? "PostgreSQL" : "SQLite"}\n`);
    const child = spawn(
      process.execPath,
      ["node_modules/tsx/dist/cli.mjs", "--conditions=react-server", "scripts/bench/main.ts"],
      { env: { ...process.env, BENCH_DB: database, TEST_DB: database }, stdio: ["ignore", "pipe", "inherit"] },
    );
    let pending = "";
    child.stdout.on("data", (chunk: Buffer) => {
      pending += chunk.toString();
      const lines = pending.split("\n");
      pending = lines.pop() ?? "";
      for (const line of lines) {
        if (line.startsWith(FIGURES_LINE)) results.set(database, JSON.parse(line.slice(FIGURES_LINE.length)));
        else console.log(line);
      }
    });
    const code = await new Promise<number | null>((resolve) => child.on("close", resolve));
    if (code !== 0) process.exitCode = code ?? 1;
  }
  const names = [...results.keys()];
  const title = (d: string) => (d === "postgresql" ? "PostgreSQL" : "SQLite");
  const first = results.get(names[0]);
  if (!first) return;
  console.log(`\n## Summary: ratio to the bare Next handler / to raw node:http in the same run (p50 ms)\n`);
  console.log(`| endpoint | ${names.map(title).join(" | ")} |\n|---|${names.map(() => "---|").join("")}`);
  for (const { name } of first.endpoints) {
    const cells = names.map((d) => {
      const f = results.get(d)?.endpoints.find((e) => e.name === name);
      return f ? `${f.ratio.toFixed(2)} / ${f.rawRatio?.toFixed(3) ?? "–"} (${f.p50})` : "–";
    });
    console.log(`| ${name} | ${cells.join(" | ")} |`);
  }
  if (first.dispatcher.length > 0) {
    console.log(
      `\n| dispatcher overhead p50 ms | ${names.map(title).join(" | ")} |\n|---|${names.map(() => "---|").join("")}`,
    );
    for (const { tool } of first.dispatcher) {
      const cells = names.map((d) =>
        String(results.get(d)?.dispatcher.find((e) => e.tool === tool)?.overhead_p50_ms ?? "–"),
      );
      console.log(`| ${tool} | ${cells.join(" | ")} |`);
    }
  }
  printTracingSummary(names, results, title);
  if (names.some((d) => results.get(d)?.addedLatency)) {
    const cell = (d: string) => {
      const a = results.get(d)?.addedLatency;
      return a ? `${a.p50_ms.toFixed(2)} / ${a.p99_ms.toFixed(2)}` : "–";
    };
    console.log(
      `\n| added latency on get_customer, p50 / p99 ms | ${names.map(title).join(" | ")} |\n|---|${names.map(() => "---|").join("")}`,
    );
    console.log(`| through Guichet − CRM Acme directly | ${names.map(cell).join(" | ")} |`);
  }
}

function printTracingSummary(names: string[], results: Map<string, DatabaseFigures>, title: (d: string) => string) {
  const first = results.get(names[0]);
  if (!first?.tracing?.length) return;
  console.log(
    `\n| added by tracing, p50 ms | ${names.map(title).join(" | ")} |\n|---|${names.map(() => "---|").join("")}`,
  );
  for (const { tool } of first.tracing) {
    const cells = names.map((d) => String(results.get(d)?.tracing.find((e) => e.tool === tool)?.added_p50_ms ?? "–"));
    console.log(`| ${tool} | ${cells.join(" | ")} |`);
  }
}

/**
 * get_customer through Guichet (POST tool_calls → dispatcher → CRM Acme) against the same call sent to
 * CRM Acme directly, both at BENCH_RATE requests/s (default 100, below saturation on two cores), sent in
 * turn by a load generator in its own process.
 */
async function addedLatency(stack: TestStack, demoKey: string) {
  const { crmDirectRequest } = await import("./ceiling");
  const { dispatchScenarios } = await import("./dispatch");
  const { execFile } = await import("node:child_process");
  const rate = Number(process.env.BENCH_RATE ?? 100);
  const viaGuichet = await dispatchScenarios[1].prepare(stack, demoKey);
  const direct = crmDirectRequest(stack);
  const target = (name: string, baseUrl: string, request: BenchRequest) => ({
    name,
    url: baseUrl + request.path,
    method: request.method ?? "GET",
    headers: { ...(request.body ? { "content-type": "application/json" } : {}), ...request.headers },
    body: typeof request.body === "function" ? request.body() : request.body,
  });
  // The two paths in turn, from a process of their own (scripts/bench/fixed-rate.mjs), at `rate` each.
  const config = {
    rate: rate * 2,
    seconds: DURATION_S * 2,
    warmupSeconds: WARMUP_S,
    targets: [target("direct", direct.baseUrl, direct.request), target("guichet", stack.baseUrl, viaGuichet)],
  };
  const output = await new Promise<string>((resolve, reject) =>
    execFile(process.execPath, ["scripts/bench/fixed-rate.mjs", JSON.stringify(config)], (error, stdout) =>
      error ? reject(error) : resolve(stdout),
    ),
  );
  type Figures = { name: string; achieved: number; p50: number; p99: number; errors: number; sent: number; ok: number };
  const { targets } = JSON.parse(output) as { targets: Figures[] };
  const [d, g] = ["direct", "guichet"].map((name) => targets.find((t) => t.name === name) as Figures);
  console.log(
    `\nAdded latency on an MCP read (get_customer), ${rate} req/s offered on each path, the two in turn, ${config.seconds} s\n`,
  );
  console.log("| path | achieved req/s | p50 ms | p99 ms | errors + non-2xx |\n|---|---|---|---|---|");
  console.log(`| CRM Acme directly | ${d.achieved} | ${d.p50} | ${d.p99} | ${d.errors} |`);
  console.log(`| through Guichet | ${g.achieved} | ${g.p50} | ${g.p99} | ${g.errors} |`);
  console.log(`| Guichet adds | | ${(g.p50 - d.p50).toFixed(2)} | ${(g.p99 - d.p99).toFixed(2)} | |`);
  figures.addedLatency = { p50_ms: g.p50 - d.p50, p99_ms: g.p99 - d.p99 };
}

async function mcpInProcess(stack: TestStack, demoKey: string) {
  const { measureMcpInProcess } = await import("./mcp");
  const iterations = Number(process.env.BENCH_ITERATIONS ?? 200);
  console.log(
    `\nMCP against REST in process (the endpoint's handler and the route's, alternately, ${iterations} times each)\n`,
  );
  console.log("| tool call | MCP p50 ms | REST p50 ms | ratio |");
  console.log("|---|---|---|---|");
  for (const f of await measureMcpInProcess(stack.baseUrl, demoKey, iterations))
    console.log(`| ${f.label} | ${f.mcp_p50_ms} | ${f.rest_p50_ms} | ${f.ratio} |`);
  const { measureOAuthAtDoor } = await import("./oauth");
  const oauth = await measureOAuthAtDoor(stack.baseUrl, demoKey, iterations);
  console.log(`\nThe MCP read call (${oauth.label}) with an OAuth access token and with an API key, in process\n`);
  console.log("| OAuth p50 ms | API key p50 ms | OAuth − API key p50 ms (target ≤ 0.3) |\n|---|---|---|");
  console.log(`| ${oauth.oauth_p50_ms} | ${oauth.api_key_p50_ms} | ${oauth.difference_p50_ms} |`);
}

/** A managed run of five read tool calls over HTTP, against the same five calls client-driven. */
async function managedRunMeasures(stack: TestStack, demoKey: string) {
  const { measureManagedRuns } = await import("./managed");
  const iterations = Number(process.env.BENCH_RUN_ITERATIONS ?? 50);
  const f = await measureManagedRuns(stack, demoKey, iterations);
  console.log(
    `\nManaged run: 5 read tool calls (calculate) against model-sim, ${iterations} runs one after another, over HTTP\n`,
  );
  console.log("| measure | p50 ms | p99 ms |\n|---|---|---|");
  console.log(`| managed run, total | ${f.managed.p50} | ${f.managed.p99} |`);
  console.log(`| same 5 calls client-driven (create + 5 tool_calls) | ${f.clientDriven.p50} | ${f.clientDriven.p99} |`);
  console.log(
    `| Guichet's overhead per model step (total − model time) / 6 | ${f.overheadPerStep.p50} | ${f.overheadPerStep.p99} |`,
  );
}

/** The dispatcher against its executors, and the write path, timed inside one process. */
async function inProcessMeasures(stack: TestStack) {
  // Tool calls enter with the proposals engine as the dispatcher's write path, as in the app.
  await import("@/lib/proposals/dispatch");
  const { measureDispatchOverhead } = await import("./dispatch-overhead");
  const { measureProposalFlow } = await import("./proposal-flow");
  console.log("\nDispatcher overhead (in process, same executor called directly and through the dispatcher)\n");
  console.log("| tool | direct p50 ms | dispatched p50 ms | direct p95 | dispatched p95 | overhead p50 ms |");
  console.log("|---|---|---|---|---|---|");
  for (const f of await measureDispatchOverhead({
    iterations: Number(process.env.BENCH_ITERATIONS ?? 200),
    crmUrl: stack.crmUrl,
  })) {
    console.log(
      `| ${f.tool} | ${f.direct.p50_ms} | ${f.dispatched.p50_ms} | ${f.direct.p95_ms} | ${f.dispatched.p95_ms} | ${f.overhead_p50_ms} |`,
    );
    figures.dispatcher.push({ tool: f.tool, overhead_p50_ms: f.overhead_p50_ms });
  }
  const concurrency = Number(process.env.BENCH_CONCURRENCY ?? 50);
  const flow = await measureProposalFlow({
    crmUrl: stack.crmUrl,
    iterations: Number(process.env.BENCH_FLOW_ITERATIONS ?? 30),
    concurrency,
  });
  console.log(`\nWrite path: preview → approve → commit (${flow.iterations} times, in process, against CRM Acme)\n`);
  console.log("| step | p50 ms | p95 ms | mean ms |");
  console.log("|---|---|---|---|");
  for (const step of ["preview", "approve", "commit", "total"] as const) {
    console.log(`| ${step} | ${flow[step].p50_ms} | ${flow[step].p95_ms} | ${flow[step].mean_ms} |`);
  }
  const c = flow.contention;
  console.log(
    `\nContention: ${c.concurrent_commits} concurrent commits of one approved proposal → ${c.succeeded} ok (${c.replayed} replayed), ${c.operations} operation(s), effects in CRM Acme: ${c.effects} (must be 1), ${c.wall_ms} ms wall`,
  );
  if (c.effects !== 1) process.exitCode = 1;
}

async function tracingMeasures(stack: TestStack) {
  await import("@/lib/proposals/dispatch");
  const { measureTracingOverhead } = await import("./tracing-overhead");
  const { figures: traced, spans } = await measureTracingOverhead({
    iterations: Number(process.env.BENCH_ITERATIONS ?? 200),
    crmUrl: stack.crmUrl,
  });
  console.log(
    `\nDispatcher overhead with OpenTelemetry tracing off and on (OTLP/HTTP to a local receiver: ${spans} spans received)\n`,
  );
  console.log("| tool | dispatched p50 ms, tracing off | dispatched p50 ms, tracing on | added by tracing p50 ms |");
  console.log("|---|---|---|---|");
  for (const f of traced) {
    console.log(`| ${f.tool} | ${f.off_p50_ms} | ${f.on_p50_ms} | ${f.added_p50_ms} |`);
    figures.tracing.push({ tool: f.tool, added_p50_ms: f.added_p50_ms });
  }
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
