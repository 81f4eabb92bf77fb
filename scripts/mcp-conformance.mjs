// The official MCP conformance suite's server scenarios that apply to a
// tools-only server, against CRM Acme on a free port and a throwaway database.
// Run by npm test; alone: node scripts/mcp-conformance.mjs
// With `--url <mcp url>` it runs the same scenarios against that server instead
// (the API tests point it at Guichet's own /mcp/agents/{agent} endpoint).
//
// The suite needs Node 22 (the project runs on 20), so npx brings both; npm's
// cache serves them offline after the first run. When neither the cache nor the
// registry can provide them the step says so and exits 3, which npm test
// reports as skipped rather than as a conformance failure.
import { spawn, spawnSync } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { root } from "./setup.mjs";

const SUITE = ["-p", "node@22", "-p", "@modelcontextprotocol/conformance@0.1.16"];
// The other server scenarios call the suite's own test tools and resources
// (test_simple_text, test://static-text…) or need prompts, logging or sampling,
// which neither server offers.
const SCENARIOS = ["server-initialize", "ping", "tools-list", "dns-rebinding-protection"];
export const UNAVAILABLE = 3;

function startCrm(dbPath) {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ["node_modules/tsx/dist/cli.mjs", "connectors/acme-crm/main.ts"], {
      cwd: root,
      env: { ...process.env, CRM_PORT: "0", CRM_DB: dbPath },
      stdio: ["ignore", "pipe", "inherit"],
    });
    let output = "";
    child.stdout.on("data", (chunk) => {
      output += chunk;
      const url = /on (http:\/\/\S+\/mcp)/.exec(output)?.[1];
      if (url) resolve({ child, url });
    });
    child.on("exit", (code) => reject(new Error(`CRM Acme exited (${code}) before listening:\n${output}`)));
  });
}

function runScenario(url, scenario) {
  const result = spawnSync(
    "npx",
    ["-y", "--prefer-offline", ...SUITE, "conformance", "server", "--url", url, "--scenario", scenario],
    {
      cwd: os.tmpdir(),
      encoding: "utf8",
    },
  );
  const output = `${result.stdout}${result.stderr}`
    .split("\n")
    .filter((line) => !line.startsWith("npm warn"))
    .join("\n");
  return { ok: result.status === 0, output };
}

const urlFlag = process.argv.indexOf("--url");
const given = urlFlag > 0 ? process.argv[urlFlag + 1] : null;
const dir = given ? null : mkdtempSync(path.join(os.tmpdir(), "crm-conformance-"));
const { child, url } = given ? { child: null, url: given } : await startCrm(path.join(dir, "crm.sqlite"));
let failed = 0;
let unavailable = false;
try {
  for (const scenario of SCENARIOS) {
    const { ok, output } = runScenario(url, scenario);
    if (!ok && /ENOTFOUND|EAI_AGAIN|ECONNREFUSED|ETIMEDOUT|ENETUNREACH|ENOTCACHED/.test(output)) {
      console.error(
        `The conformance suite could not be fetched (no npm cache, no registry):\n${output.trim().split("\n").slice(-5).join("\n")}`,
      );
      unavailable = true;
      break;
    }
    console.log(`${ok ? "✓" : "✗"} ${scenario}`);
    if (!ok) {
      failed++;
      console.log(output);
    }
  }
} finally {
  child?.kill("SIGTERM");
  if (dir) rmSync(dir, { recursive: true, force: true });
}
process.exit(unavailable ? UNAVAILABLE : failed ? 1 : 0);
