// npm test — every test, from a fresh clone: lint, types, schema and OpenAPI
// drift, unit tests, the MCP conformance suite on CRM Acme, the production
// build, API tests over HTTP on SQLite and on PostgreSQL, and Playwright
// journeys in Debian's Chromium.
import { spawnSync } from "node:child_process";
import { existsSync, mkdirSync, readFileSync, rmSync } from "node:fs";
import path from "node:path";
import { commandExists, ensureBuild, ensureDependencies, ensurePrismaClients, isRoot, root, step } from "./setup.mjs";

const chromium = process.env.CHROMIUM_PATH ?? "/usr/bin/chromium";

function ensureChromium() {
  if (existsSync(chromium)) return;
  if (!isRoot() || !commandExists("apt-get")) {
    console.error(
      `Chromium is missing at ${chromium}: install Debian's package (sudo apt-get install -y chromium) or set CHROMIUM_PATH.`,
    );
    process.exit(1);
  }
  step("Installing Debian's chromium for the browser tests");
  for (const args of [
    ["update", "-qq"],
    ["install", "-y", "-qq", "chromium"],
  ]) {
    const result = spawnSync("apt-get", args, {
      stdio: "inherit",
      env: { ...process.env, DEBIAN_FRONTEND: "noninteractive" },
    });
    if (result.status !== 0) process.exit(1);
  }
}

ensureDependencies();
ensureChromium();
ensurePrismaClients();
mkdirSync(path.join(root, "test-results"), { recursive: true });

const results = [];
const counts = { passed: 0, failed: 0, skipped: 0 };

function run(name, command, args, { env = {}, report } = {}) {
  step(name);
  if (report) rmSync(report, { force: true });
  const started = Date.now();
  const result = spawnSync(command, args, { cwd: root, stdio: "inherit", env: { ...process.env, ...env } });
  const ok = result.status === 0;
  results.push({ name, ok, seconds: Math.round((Date.now() - started) / 1000) });
  if (report && existsSync(report)) countReport(report);
  else if (!report) counts[ok ? "passed" : "failed"]++; // a check with no test report counts as one test
  return ok;
}

// The official MCP conformance suite against CRM Acme. Exit 3 means the suite could
// not be fetched (no npm cache and no registry): reported as skipped, not failed.
function mcpConformance() {
  const name = "MCP conformance suite on CRM Acme (tools-only server scenarios)";
  step(name);
  const started = Date.now();
  const result = spawnSync(node, ["scripts/mcp-conformance.mjs"], { cwd: root, stdio: "inherit" });
  const seconds = Math.round((Date.now() - started) / 1000);
  if (result.status === 3) {
    results.push({ name: `${name} — skipped: suite unavailable offline`, ok: true, seconds });
    counts.skipped++;
    return;
  }
  results.push({ name, ok: result.status === 0, seconds });
  counts[result.status === 0 ? "passed" : "failed"]++;
}

function countReport(file) {
  const data = JSON.parse(readFileSync(file, "utf8"));
  if (data.stats) {
    // Playwright's JSON reporter
    counts.passed += data.stats.expected + data.stats.flaky;
    counts.failed += data.stats.unexpected;
    counts.skipped += data.stats.skipped;
  } else {
    counts.passed += data.numPassedTests;
    counts.failed += data.numFailedTests;
    // A file whose setup (beforeAll) failed has its tests skipped, none failed: count the file itself as a failure.
    counts.failed += data.testResults.filter(
      (file) => file.status === "failed" && !file.assertionResults.some((test) => test.status === "failed"),
    ).length;
    counts.skipped += data.numPendingTests + (data.numTodoTests ?? 0);
  }
}

const node = process.execPath;
const vitest = (config, report, extra = []) => [
  "node_modules/vitest/vitest.mjs",
  "run",
  ...(config ? ["--config", config] : []),
  "--reporter=default",
  "--reporter=json",
  `--outputFile.json=${report}`,
  ...extra,
];

run("Lint (eslint)", node, ["node_modules/eslint/bin/eslint.js", "."]);
run("Formatting (prettier --check)", node, [
  "node_modules/prettier/bin/prettier.cjs",
  "--check",
  "--log-level=warn",
  ".",
]);
run("Type-check (tsc)", node, ["node_modules/typescript/bin/tsc", "--noEmit"]);
run("Prisma variants in sync with the schema source", node, ["scripts/prisma-variants.mjs", "--check"]);
run("Committed OpenAPI document in sync", node, ["node_modules/tsx/dist/cli.mjs", "scripts/openapi.ts", "--check"]);
run("OpenAPI lint: Redocly recommended + Spectral spectral:oas, zero warnings", node, ["scripts/openapi-lint.mjs"]);
run("Unit tests (vitest)", node, vitest(null, "test-results/unit.json"), { report: "test-results/unit.json" });
mcpConformance();

let built = false;
step("Production build");
try {
  ensureBuild();
  built = true;
  results.push({ name: "Production build", ok: true, seconds: 0 });
} catch (error) {
  console.error(error.message);
  results.push({ name: "Production build", ok: false, seconds: 0 });
  counts.failed++;
}

if (built) {
  run("API tests over HTTP — SQLite", node, vitest("vitest.api.config.mts", "test-results/api-sqlite.json"), {
    report: "test-results/api-sqlite.json",
    env: { TEST_DB: "sqlite" },
  });
  run("API tests over HTTP — PostgreSQL", node, vitest("vitest.api.config.mts", "test-results/api-postgresql.json"), {
    report: "test-results/api-postgresql.json",
    env: { TEST_DB: "postgresql" },
  });
  run(
    "Browser journeys (Playwright, Chromium)",
    node,
    ["node_modules/@playwright/test/cli.js", "test", "--reporter=list,json"],
    {
      report: "test-results/e2e.json",
      env: { PLAYWRIGHT_JSON_OUTPUT_NAME: "test-results/e2e.json", CHROMIUM_PATH: chromium },
    },
  );
}

console.log("\nSummary");
for (const r of results) console.log(`  ${r.ok ? "✓" : "✗"} ${r.name}${r.seconds ? ` (${r.seconds} s)` : ""}`);
console.log(`\n${counts.passed} passed, ${counts.failed} failed, ${counts.skipped} skipped`);
process.exit(results.every((r) => r.ok) ? 0 : 1);
