import { execFileSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import https from "node:https";
import type { AddressInfo } from "node:net";
import os from "node:os";
import path from "node:path";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { UnauthorizedError } from "@modelcontextprotocol/sdk/client/auth.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { api, createTenant, testDb, type Tenant } from "./helpers";
import { createAgent } from "./dispatch-fixtures";
import {
  closeBrowser,
  consentInChromium,
  loopbackCallback,
  MemoryOAuthProvider,
  pkce,
  type Callback,
} from "./oauth-helpers";
import { startApp, testNetwork } from "./server";

// Client ID Metadata Documents: the client_id is an https URL a stranger
// chose, fetched by Guichet under the network policy. A second instance trusts
// this file's certificate authority, so documents are served over real TLS on
// a `.test` name (public in test stacks); each bad document is refused with
// nothing stored.

let app: Awaited<ReturnType<typeof startApp>>;
let docs: https.Server;
let docsOrigin: string;
let dir: string;
let tenant: Tenant;
let agentId: string;
let callback: Callback;
const hits = new Map<string, number>();

beforeAll(async () => {
  dir = mkdtempSync(path.join(os.tmpdir(), "guichet-cimd-"));
  execFileSync(
    "openssl",
    [
      "req",
      "-x509",
      "-newkey",
      "rsa:2048",
      "-nodes",
      "-days",
      "2",
      "-subj",
      "/CN=clients.test",
      "-addext",
      "subjectAltName=DNS:clients.test",
      "-keyout",
      path.join(dir, "key.pem"),
      "-out",
      path.join(dir, "cert.pem"),
    ],
    { stdio: "ignore" },
  );
  callback = await loopbackCallback();
  docs = https.createServer(
    { key: readFileSync(path.join(dir, "key.pem")), cert: readFileSync(path.join(dir, "cert.pem")) },
    (req, res) => {
      const name = req.url ?? "/";
      hits.set(name, (hits.get(name) ?? 0) + 1);
      const document = (clientId: string, extra: Record<string, unknown> = {}) =>
        JSON.stringify({
          client_id: clientId,
          client_name: "Claude",
          redirect_uris: [callback.url],
          token_endpoint_auth_method: "none",
          ...extra,
        });
      const own = `${docsOrigin}${name}`;
      if (name === "/slow.json") return void setTimeout(() => res.end(document(own)), 6_000);
      res.writeHead(200, { "content-type": "application/json" });
      if (name === "/big.json") return void res.end(document(own, { padding: "x".repeat(10_000) }));
      if (name === "/other-id.json") return void res.end(document(`${docsOrigin}/good.json`));
      res.end(document(own));
    },
  );
  await new Promise<void>((resolve) => docs.listen(0, "127.0.0.1", resolve));
  docsOrigin = `https://clients.test:${(docs.address() as AddressInfo).port}`;
  app = await startApp({
    ...process.env,
    NODE_ENV: "production",
    ...testNetwork(),
    NODE_EXTRA_CA_CERTS: path.join(dir, "cert.pem"),
  });
  tenant = await createTenant("pro");
  agentId = (await createAgent(tenant)).id;
});

afterAll(async () => {
  await app?.stop();
  docs?.closeAllConnections();
  await new Promise((resolve) => docs?.close(resolve));
  await callback?.close();
  await closeBrowser();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

async function authorize(clientId: string) {
  const params = new URLSearchParams({
    response_type: "code",
    client_id: clientId,
    redirect_uri: callback.url,
    code_challenge: pkce().challenge,
    code_challenge_method: "S256",
    state: "s",
    scope: "mcp:read",
    resource: `${app.baseUrl}/mcp/agents/${agentId}`,
  });
  const response = await fetch(`${app.baseUrl}/oauth/authorize?${params}`, { redirect: "manual" });
  return { status: response.status, location: response.headers.get("location"), text: await response.text() };
}

describe("Client ID Metadata Documents", () => {
  it("lets the SDK client sign in with its document as client_id, fetched once and cached", async () => {
    const metadataUrl = `${docsOrigin}/good.json`;
    const provider = new MemoryOAuthProvider(
      callback.url,
      (url) => consentInChromium(url, tenant.emails.developer, "Autoriser", undefined, app.baseUrl),
      { metadataUrl },
    );
    const door = new URL(`${app.baseUrl}/mcp/agents/${agentId}`);
    const transport = new StreamableHTTPClientTransport(door, { authProvider: provider });
    await expect(new Client({ name: "c", version: "1" }).connect(transport)).rejects.toBeInstanceOf(UnauthorizedError);
    expect(provider.authorizationUrl?.searchParams.get("client_id")).toBe(metadataUrl);
    const answer = await callback.next();
    await transport.finishAuth(answer.get("code")!);
    const client = new Client({ name: "c", version: "1" });
    await client.connect(new StreamableHTTPClientTransport(door, { authProvider: provider }));
    await client.listTools();
    await client.close();
    const db = await testDb();
    const stored = await db.oAuthClient.findUniqueOrThrow({ where: { clientId: metadataUrl } });
    expect(stored).toMatchObject({ kind: "metadata_document", name: "Claude" });
    // The consent screen, the decision and the second authorization read the cached document.
    expect(hits.get("/good.json")).toBe(1);
    expect((await authorize(metadataUrl)).status).toBe(302);
    expect(hits.get("/good.json")).toBe(1);

    // Revoked through the suite's instance, the token this instance has validated and kept is refused at once here.
    const grant = await db.oAuthGrant.findFirstOrThrow({ where: { client: { clientId: metadataUrl } } });
    const developer = await tenant.as("developer");
    expect((await api(`/v1/oauth_grants/${grant.id}`, { method: "DELETE", as: developer })).status).toBe(200);
    const after = await fetch(door, {
      method: "POST",
      headers: {
        authorization: `Bearer ${provider.saved!.access_token}`,
        "content-type": "application/json",
        accept: "application/json, text/event-stream",
      },
      body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/list" }),
    });
    expect(after.status).toBe(401);
  });

  it("refuses a document on a private address, oversized, slow, or naming another client_id", async () => {
    const port = (docs.address() as AddressInfo).port;
    for (const clientId of [
      `https://127.0.0.1:${port}/good.json`,
      `${docsOrigin}/big.json`,
      `${docsOrigin}/slow.json`,
      `${docsOrigin}/other-id.json`,
    ]) {
      const answer = await authorize(clientId);
      expect(answer.status, clientId).toBe(400);
      expect(answer.location).toBeNull();
      expect(answer.text).toContain("invalid_client");
    }
    const db = await testDb();
    expect(
      await db.oAuthClient.count({
        where: { kind: "metadata_document", name: { not: "" }, clientId: { not: `${docsOrigin}/good.json` } },
      }),
    ).toBe(0);
  });

  it("sends a code only to a redirect URI the document lists, exactly", async () => {
    const params = new URLSearchParams({
      response_type: "code",
      client_id: `${docsOrigin}/good.json`,
      redirect_uri: `${callback.url}/extra`,
      code_challenge: pkce().challenge,
      code_challenge_method: "S256",
      resource: `${app.baseUrl}/mcp/agents/${agentId}`,
    });
    const response = await fetch(`${app.baseUrl}/oauth/authorize?${params}`, { redirect: "manual" });
    expect(response.status).toBe(400);
    expect(response.headers.get("location")).toBeNull();
  });
});
