// The official MCP conformance suite. By default its server scenarios that apply
// to a tools-only server, against CRM Acme on a free port and a throwaway
// database. Run by npm test; alone: node scripts/mcp-conformance.mjs
// With `--url <mcp url>` it runs the same scenarios against that server instead
// (the API tests point it at Guichet's own /mcp/agents/{agent} endpoint).
// With `--client` it runs the client authorization scenarios (`--suite auth`)
// against scripts/conformance-client.ts, which connects the way Guichet connects
// a member to an `oauth` connector (lib/connections/oauth.ts): each scenario
// starts its own authorization server and MCP server and runs the command with
// the server's URL.
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

// The suite's `auth` client scenarios (0.1.16), one at a time: run side by side, each
// scenario's client start (tsx compiling Guichet's modules) outlasts the suite's timeout on two cores.
const CLIENT_SCENARIOS = [
  "auth/metadata-default",
  "auth/metadata-var1",
  "auth/metadata-var2",
  "auth/metadata-var3",
  "auth/basic-cimd",
  "auth/scope-from-www-authenticate",
  "auth/scope-from-scopes-supported",
  "auth/scope-omitted-when-undefined",
  "auth/scope-step-up",
  "auth/scope-retry-limit",
  "auth/token-endpoint-auth-basic",
  "auth/token-endpoint-auth-post",
  "auth/token-endpoint-auth-none",
  "auth/pre-registration",
];
// Scenarios Guichet's client does not pass, and why (README, « MCP conformance »). One of them
// passing fails the step too, so that this list is kept true.
const CLIENT_EXPECTED_FAILURES = new Map([
  [
    "auth/basic-cimd",
    "Guichet's client id is its own Client ID Metadata Document, at /oauth/connector-client.json on the instance's origin; the scenario warns unless the client id is the exact URL it names (https://conformance-test.local/client-metadata.json).",
  ],
  [
    "auth/scope-step-up",
    "A connection asks for its scopes when the member connects; a 403 insufficient_scope on a later call is not turned into a new sign-in with the wider scope (the member reconnects).",
  ],
]);
const CLIENT_COMMAND = [
  process.execPath,
  path.join(root, "node_modules/tsx/dist/cli.mjs"),
  "--tsconfig",
  path.join(root, "tsconfig.json"),
  "--conditions=react-server",
  path.join(root, "scripts/conformance-client.ts"),
]
  // The suite splits the command on spaces and runs it through a shell: quote each part.
  .map((part) => `'${part.replaceAll("'", "'\\''")}'`)
  .join(" ");

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
  const target = url ? ["server", "--url", url] : ["client", "--command", CLIENT_COMMAND, "--timeout", "60000"];
  const result = spawnSync(
    "npx",
    ["-y", "--prefer-offline", ...SUITE, "conformance", ...target, "--scenario", scenario],
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

const clientMode = process.argv.includes("--client");
const urlFlag = process.argv.indexOf("--url");
const given = urlFlag > 0 ? process.argv[urlFlag + 1] : null;
const dir = given || clientMode ? null : mkdtempSync(path.join(os.tmpdir(), "crm-conformance-"));
const { child, url } = given || clientMode ? { child: null, url: given } : await startCrm(path.join(dir, "crm.sqlite"));
let failed = 0;
let unavailable = false;
try {
  for (const scenario of clientMode ? CLIENT_SCENARIOS : SCENARIOS) {
    const { ok, output } = runScenario(url, scenario);
    if (
      !ok &&
      /ENOTFOUND|EAI_AGAIN|ECONNREFUSED|ETIMEDOUT|ENETUNREACH|ENOTCACHED/.test(output) &&
      !/Checks:/.test(output)
    ) {
      console.error(
        `The conformance suite could not be fetched (no npm cache, no registry):\n${output.trim().split("\n").slice(-5).join("\n")}`,
      );
      unavailable = true;
      break;
    }
    const expected = clientMode ? CLIENT_EXPECTED_FAILURES.get(scenario) : undefined;
    if (expected && !ok) {
      console.log(`~ ${scenario} (known: ${expected})`);
      continue;
    }
    console.log(
      `${ok ? "✓" : "✗"} ${scenario}${expected ? " passes now: remove it from CLIENT_EXPECTED_FAILURES" : ""}`,
    );
    if (!ok || expected) {
      failed++;
      console.log(output);
    }
  }
} finally {
  child?.kill("SIGTERM");
  if (dir) rmSync(dir, { recursive: true, force: true });
}
process.exit(unavailable ? UNAVAILABLE : failed ? 1 : 0);
