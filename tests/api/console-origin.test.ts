import { beforeAll, describe, expect, it } from "vitest";
import { baseUrl, createTenant, rawRequest, signIn, type Caller, type Tenant } from "./helpers";
import { createAgent } from "./dispatch-fixtures";
import { mcpUrl } from "./mcp-server-helpers";

// The console's origins, decided once (lib/auth/console-origin.ts): cookie-
// authenticated /v1 writes and the MCP endpoint accept and refuse the same
// browser origins, and next-auth's sign-out sends the browser back to the
// console name it is on. The suite's NEXTAUTH_URL names 127.0.0.1; the Host
// header says which name the browser used (node's http client sends it as given).

let tenant: Tenant;
let admin: Caller;
let agentId: string;
const port = new URL(baseUrl).port;

beforeAll(async () => {
  tenant = await createTenant("pro");
  admin = await tenant.as("admin");
  agentId = (await createAgent(tenant, { name: `console-origin ${Date.now()}` })).id;
});

async function v1Write(host: string, origin: string) {
  const response = await rawRequest(`${baseUrl}/v1/agents`, {
    method: "POST",
    headers: { host, origin, cookie: admin.cookie!, "content-type": "application/json" },
    body: "{}",
  });
  return { status: response.status, body: JSON.parse(response.text) };
}

async function mcpInitialize(host: string, origin: string) {
  const response = await rawRequest(mcpUrl(agentId), {
    method: "POST",
    headers: {
      host,
      origin,
      authorization: `Bearer ${tenant.key}`,
      "content-type": "application/json",
      accept: "application/json, text/event-stream",
    },
    body: JSON.stringify({
      jsonrpc: "2.0",
      id: 1,
      method: "initialize",
      params: { protocolVersion: "2025-11-25", capabilities: {}, clientInfo: { name: "origin", version: "0.1" } },
    }),
  });
  return response.status;
}

describe("the console's origins, the same at /v1 and at the MCP endpoint", () => {
  it.each([
    ["the configured console URL", `127.0.0.1:${port}`, `http://127.0.0.1:${port}`],
    ["the same server under another loopback name", `localhost:${port}`, `http://localhost:${port}`],
  ])("accepts %s", async (_what, host, origin) => {
    const write = await v1Write(host, origin);
    // Past the Origin check: the empty body is what is refused.
    expect(write.status).toBe(400);
    expect(write.body.error.code).not.toBe("forbidden");
    expect(await mcpInitialize(host, origin)).toBe(200);
  });

  it.each([
    [
      "a DNS-rebinding page (its own name, which the request reached)",
      `attacker.example:${port}`,
      `http://attacker.example:${port}`,
    ],
    ["another program of this machine (another port)", `127.0.0.1:${port}`, "http://127.0.0.1:1"],
    ["a loopback name the request did not reach", `127.0.0.1:${port}`, `http://localhost:${port}`],
    ["another site", `127.0.0.1:${port}`, "https://evil.example"],
    ["an opaque origin", `127.0.0.1:${port}`, "null"],
  ])("refuses %s at both doors with 403 forbidden", async (_what, host, origin) => {
    const write = await v1Write(host, origin);
    expect(write.status).toBe(403);
    expect(write.body.error.code).toBe("forbidden");
    expect(await mcpInitialize(host, origin)).toBe(403);
  });
});

describe("sign-out keeps the console name the browser is on", () => {
  async function signOutUrl(host: string): Promise<string> {
    const caller = await signIn(tenant.emails.viewer);
    const csrf = await rawRequest(`${baseUrl}/api/auth/csrf`, { headers: { host, cookie: caller.cookie! } });
    const { csrfToken } = JSON.parse(csrf.text) as { csrfToken: string };
    const response = await rawRequest(`${baseUrl}/api/auth/signout`, {
      method: "POST",
      headers: {
        host,
        "content-type": "application/x-www-form-urlencoded",
        cookie: [caller.cookie!, ...csrf.cookies].join("; "),
      },
      // What the console's button sends: a relative callback URL.
      body: new URLSearchParams({ csrfToken, callbackUrl: "/connexion", json: "true" }).toString(),
    });
    expect(response.status).toBe(200);
    return (JSON.parse(response.text) as { url: string }).url;
  }

  it("at 127.0.0.1 and at localhost, back to that same name", async () => {
    expect(await signOutUrl(`127.0.0.1:${port}`)).toBe(`http://127.0.0.1:${port}/connexion`);
    expect(await signOutUrl(`localhost:${port}`)).toBe(`http://localhost:${port}/connexion`);
  });

  it("under a name that is not the console's, to NEXTAUTH_URL's origin, never to that name", async () => {
    expect(await signOutUrl(`attacker.example:${port}`)).toBe(`http://127.0.0.1:${port}/connexion`);
  });
});
