import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startAcmeCrm, type AcmeCrmServer } from "@/connectors/acme-crm/server";
import { startTestServer, type TestServer } from "@/tests/support/http-server";
import { api, createTenant, dataDir, testDb, type Tenant } from "./helpers";
import { connectServer, patchServer, syncServer } from "./mcp-helpers";

// A connector's token belongs to the origin it was given for. The attack: PATCH
// the server's URL to a host of one's own, sync, and read the Bearer token there.

const TOKEN = "crm-bound-token-4242";
let tenant: Tenant;
let tokenCrm: AcmeCrmServer;
let tokenCrmUrl: string;
let catcher: TestServer;
let catcherUrl: string;
const seenAuthorizations: string[] = [];

beforeAll(async () => {
  tenant = await createTenant("pro");
  // Both peers run on loopback under public-looking test names (only CRM Acme's main origin is allowlisted);
  // this CRM binds 127.0.0.2, where it accepts a Host name that is not a loopback one.
  tokenCrm = await startAcmeCrm({
    port: 0,
    host: "127.0.0.2",
    dbPath: path.join(dataDir, "crm-bound-token.sqlite"),
    token: TOKEN,
  });
  tokenCrmUrl = tokenCrm.url.replace("127.0.0.2", "crm-bound.alt.test");
  catcher = await startTestServer((req, res) => {
    seenAuthorizations.push(req.headers.authorization ?? "");
    res.writeHead(401, { "content-type": "application/json" }).end('{"error":"who are you"}');
  });
  catcherUrl = `${catcher.origin.replace("127.0.0.1", "catcher.test")}/mcp`;
});

afterAll(async () => {
  await tokenCrm?.close();
  await catcher?.close();
});

const stored = async (id: number) => (await testDb()).mcpServer.findUniqueOrThrow({ where: { id } });

describe("a connector token bound to its origin", () => {
  it("drops the token when a PATCH moves the server to another origin: the next sync sends no token there", async () => {
    const id = await connectServer(tenant, { name: "CRM lié", url: tokenCrmUrl, auth: "org_token", token: TOKEN });
    expect((await syncServer(tenant, id)).status).toBe(200);

    const moved = await patchServer(tenant, id, { url: catcherUrl });
    expect(moved.status).toBe(200);
    expect(moved.body.data).toMatchObject({ url: catcherUrl, auth: "org_token", has_token: false });
    expect((await stored(id)).tokenCiphertext).toBeNull();

    const sync = await syncServer(tenant, id);
    expect(sync.status).toBe(422);
    expect(sync.body.error).toMatchObject({ code: "mcp_sync_failed", reason: { code: "unauthorized" } });
    expect(seenAuthorizations.length).toBeGreaterThan(0);
    expect(seenAuthorizations.join("\n")).not.toContain(TOKEN);

    // Without its token, the server can still be edited (renamed, paused) and stays without one;
    // removing the token it does not have, or leaving org_token with a token, is still refused.
    const renamed = await patchServer(tenant, id, { name: "CRM lié (sans jeton)", active: false });
    expect(renamed.status).toBe(200);
    expect(renamed.body.data).toMatchObject({
      name: "CRM lié (sans jeton)",
      active: false,
      auth: "org_token",
      has_token: false,
    });
    const removed = await patchServer(tenant, id, { token: null });
    expect(removed.status).toBe(400);
    expect(removed.body.error.errors[0]).toMatchObject({ field: "token" });
    expect(await stored(id)).toMatchObject({ name: "CRM lié (sans jeton)", tokenCiphertext: null, active: false });
    expect((await patchServer(tenant, id, { active: true })).status).toBe(200);

    // Back home, the token is not there any more: it must be given again, with the move.
    const home = await patchServer(tenant, id, { url: tokenCrmUrl, token: TOKEN });
    expect(home.status).toBe(200);
    expect(home.body.data.has_token).toBe(true);
    expect((await syncServer(tenant, id)).status).toBe(200);
  });

  it("keeps the token for a new path on the same origin, and takes a new token sent with the move", async () => {
    const id = await connectServer(tenant, {
      name: "CRM même origine",
      url: tokenCrmUrl,
      auth: "org_token",
      token: TOKEN,
    });
    const samePath = await patchServer(tenant, id, { url: `${tokenCrmUrl}?v=2` });
    expect(samePath.body.data.has_token).toBe(true);
    const before = seenAuthorizations.length;
    const withNew = await patchServer(tenant, id, { url: catcherUrl, token: "catcher-own-token" });
    expect(withNew.status).toBe(200);
    expect(withNew.body.data.has_token).toBe(true);
    await syncServer(tenant, id);
    const sent = seenAuthorizations.slice(before);
    expect(sent).toContain("Bearer catcher-own-token");
    expect(sent.join("\n")).not.toContain(TOKEN);
  });

  it("never decrypts a token for another origin, even when the URL is changed behind the API's back", async () => {
    const id = await connectServer(tenant, { name: "CRM détourné", url: tokenCrmUrl, auth: "org_token", token: TOKEN });
    const before = seenAuthorizations.length;
    await (await testDb()).mcpServer.update({ where: { id }, data: { url: catcherUrl } });
    const sync = await syncServer(tenant, id);
    expect(sync.status).toBe(422);
    expect(sync.body.error).toMatchObject({ code: "mcp_sync_failed", reason: { code: "unauthorized" } });
    expect(seenAuthorizations.slice(before).join("\n")).not.toContain(TOKEN);
    const server = await api(`/v1/mcp_servers/${id}`, { as: await tenant.as("admin") });
    expect(JSON.stringify(server.body)).not.toContain(TOKEN);
  });
});
