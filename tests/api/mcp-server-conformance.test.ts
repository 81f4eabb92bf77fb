import { spawn } from "node:child_process";
import http from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, expect, it } from "vitest";
import { createAgent } from "./dispatch-fixtures";
import { createTenant, suiteNetwork, type Tenant } from "./helpers";
import { startApp } from "./server";

// The official MCP conformance suite's tools-only server scenarios (the same
// runner and list as for CRM Acme: scripts/mcp-conformance.mjs) against
// Guichet's endpoint. The suite cannot send an API key, so it talks to a
// forwarding proxy that adds one, as a client configured with a key would; the
// instance behind it lists the proxy's origin as allowed, as an operator
// serving browser clients from another origin would.
//
// Scenarios that do not apply: the tools-call-* and resources-* ones call the
// suite's own test tools and read its own test resources (test_simple_text,
// test://static-text…), which an agent's catalog and documents are not; prompts,
// logging, completion, elicitation, sampling and server SSE streams are features
// this endpoint does not offer.

let tenant: Tenant;
let agentId: string;
let proxy: http.Server;
let app: Awaited<ReturnType<typeof startApp>>;

function forwardingProxy(key: string, target: () => string): http.Server {
  return http.createServer((req, res) => {
    const upstream = new URL(req.url ?? "/", target());
    // Host and Origin go through untouched: the DNS-rebinding scenario is about them.
    const forwarded = http.request(
      upstream,
      { method: req.method, headers: { ...req.headers, authorization: `Bearer ${key}` } },
      (answer) => {
        res.writeHead(answer.statusCode ?? 502, answer.headers);
        answer.pipe(res);
      },
    );
    forwarded.on("error", () => res.destroy());
    req.pipe(forwarded);
  });
}

beforeAll(async () => {
  tenant = await createTenant("pro");
  agentId = (await createAgent(tenant)).id;
  let appUrl = "";
  proxy = forwardingProxy(tenant.key, () => appUrl);
  await new Promise<void>((resolve) => proxy.listen(0, "127.0.0.1", resolve));
  const port = (proxy.address() as AddressInfo).port;
  app = await startApp({
    ...process.env,
    NODE_ENV: "production",
    ...suiteNetwork(),
    GUICHET_MCP_ALLOWED_ORIGINS: `http://127.0.0.1:${port},http://localhost:${port}`,
  });
  appUrl = app.baseUrl;
});

afterAll(async () => {
  await app?.stop();
  proxy?.closeAllConnections();
  proxy?.close();
});

/** Runs the suite without blocking this process: the proxy answering it lives here. */
function runSuite(url: string): Promise<{ status: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, ["scripts/mcp-conformance.mjs", "--url", url], {
      stdio: ["ignore", "pipe", "pipe"],
    });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (chunk) => (stdout += chunk));
    child.stderr.on("data", (chunk) => (stderr += chunk));
    child.on("close", (status) => resolve({ status, stdout, stderr }));
  });
}

it("passes the suite's tools-only server scenarios", { timeout: 300_000 }, async (context) => {
  const url = `http://127.0.0.1:${(proxy.address() as AddressInfo).port}/mcp/agents/${agentId}`;
  const result = await runSuite(url);
  // Exit 3: the suite could not be fetched (no npm cache, no registry) — not a conformance failure.
  if (result.status === 3) context.skip();
  expect(result.stdout).toContain("✓ server-initialize");
  expect(result.stdout).toContain("✓ tools-list");
  expect(result.stdout).toContain("✓ dns-rebinding-protection");
  expect(result.status, result.stdout + result.stderr).toBe(0);
});
