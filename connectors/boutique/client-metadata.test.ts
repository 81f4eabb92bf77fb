import http from "node:http";
import type { AddressInfo } from "node:net";
import { decodeJwt } from "jose";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { isClientIdUrl } from "./client-metadata";
import { startBoutique, type BoutiqueServer } from "./server";
import { Browser, MemoryOAuthClient, REDIRECT_URL, signIn } from "./test-helpers";

// Client ID Metadata Documents: a client_id that is an https URL is resolved
// by fetching it. The documents are served by a local HTTP server; the fetch
// given to Boutique stands in for DNS and TLS (`https://clients.test/…` → it).

let docs: http.Server;
const hits = new Map<string, number>();
let docsBase: string;
let boutique: BoutiqueServer;
const ORIGIN = "https://clients.test";

function documentFor(path: string): Record<string, unknown> | null {
  const own = `${ORIGIN}${path}`;
  const base = { client_id: own, client_name: "Guichet (CIMD)", redirect_uris: [REDIRECT_URL] };
  if (path === "/guichet/oauth-client.json") return { ...base, token_endpoint_auth_method: "none" };
  if (path === "/other-id.json") return { ...base, client_id: `${ORIGIN}/guichet/oauth-client.json` };
  if (path === "/with-secret.json")
    return { ...base, client_secret: "shh", token_endpoint_auth_method: "client_secret_basic" };
  return null;
}

beforeAll(async () => {
  docs = http.createServer((req, res) => {
    hits.set(req.url ?? "/", (hits.get(req.url ?? "/") ?? 0) + 1);
    const doc = documentFor(req.url ?? "/");
    if (!doc) return void res.writeHead(404).end();
    res.writeHead(200, { "content-type": "application/json", "cache-control": "max-age=600" });
    res.end(JSON.stringify(doc));
  });
  await new Promise<void>((resolve) => docs.listen(0, "127.0.0.1", resolve));
  docsBase = `http://127.0.0.1:${(docs.address() as AddressInfo).port}`;
  boutique = await startBoutique({
    controls: true,
    clientMetadataFetch: (url, init) => fetch(url.replace(ORIGIN, docsBase), init),
  });
});
afterAll(async () => {
  await boutique?.close();
  docs?.closeAllConnections();
  await new Promise((resolve) => docs?.close(resolve));
});

class CimdClient extends MemoryOAuthClient {
  clientMetadataUrl = `${ORIGIN}/guichet/oauth-client.json`;
}

async function authorizeWith(clientId: string) {
  const url = new URL(`${boutique.issuer}/auth`);
  url.search = new URLSearchParams({
    response_type: "code",
    client_id: clientId,
    redirect_uri: REDIRECT_URL,
    code_challenge: "E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM",
    code_challenge_method: "S256",
    scope: "orders",
    state: "s",
    resource: boutique.mcpUrl,
  }).toString();
  return new Browser().follow(url, REDIRECT_URL);
}

describe("Client ID Metadata Documents", () => {
  it("are announced in the metadata and accepted only as https URLs with a path", async () => {
    const doc = await (await fetch(`${boutique.url}/.well-known/oauth-authorization-server`)).json();
    expect(doc.client_id_metadata_document_supported).toBe(true);
    expect(isClientIdUrl("https://clients.test/guichet/oauth-client.json")).toBe(true);
    for (const bad of [
      "http://clients.test/c.json",
      "https://clients.test/",
      "https://clients.test/c.json#x",
      "https://user:pw@clients.test/c.json",
      "https://clients.test/a/../c.json",
    ]) {
      expect(isClientIdUrl(bad), bad).toBe(false);
    }
  });

  it("let the SDK client sign in with its document URL as client_id, fetched once and cached", async () => {
    const first = await signIn(boutique.mcpUrl, boutique.issuer, "dana@boutique.test", new CimdClient());
    expect(first.client?.client_id).toBe(`${ORIGIN}/guichet/oauth-client.json`);
    expect(decodeJwt(first.saved!.access_token)).toMatchObject({
      client_id: `${ORIGIN}/guichet/oauth-client.json`,
      sub: "acct_dana",
      aud: boutique.mcpUrl,
    });
    await signIn(boutique.mcpUrl, boutique.issuer, "leo@boutique.test", new CimdClient());
    expect((await authorizeWith(`${ORIGIN}/guichet/oauth-client.json`)).res?.status).toBe(200); // the login page
    expect(hits.get("/guichet/oauth-client.json")).toBe(1);
  });

  it("refuse a document naming another client_id, one holding a secret, and a missing one", async () => {
    for (const path of ["/other-id.json", "/with-secret.json", "/missing.json"]) {
      const { res, url } = await authorizeWith(`${ORIGIN}${path}`);
      expect(url.href.startsWith(REDIRECT_URL), path).toBe(false); // never sent to a redirect URI it did not prove
      expect(res?.status, path).toBe(400);
      expect(await res!.text()).toContain("invalid_client");
    }
  });
});
