import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { api, createTenant, crmUrl, searchUrl, signIn, simBaseUrl, testDb, type Caller, type Tenant } from "./helpers";
import { startApp, testNetwork } from "./server";

// The private origins GUICHET_PRIVATE_ORIGINS grants, as an organization sees and
// uses them: readable by its owners and admins, writable by nobody through the API,
// and granted per organization — one tenant never reaches another's private services.

let tenant: Tenant;

/** What the suite's stack grants every organization (tests/api/global-setup.ts), in its order. */
const suiteOrigins = () => [
  new URL(crmUrl).origin,
  simBaseUrl,
  new URL(searchUrl).origin,
  new URL(inject("boutiqueUrl")).origin,
];

beforeAll(async () => {
  tenant = await createTenant("pro");
});

describe("GET /v1/network/private_origins", () => {
  it("shows owners and admins their grants: CRM Acme's, model-sim's, the search backend's and Boutique's origins (=* in the test stack)", async () => {
    for (const role of ["owner", "admin"] as const) {
      const response = await api("/v1/network/private_origins", { as: await tenant.as(role) });
      expect(response.status, role).toBe(200);
      expect(response.body).toEqual({
        data: {
          origins: suiteOrigins(),
          applies_to: ["mcp_servers", "search_backend", "model_providers"],
        },
      });
    }
  });

  it("refuses other roles (403 forbidden) and API keys (session only)", async () => {
    for (const role of ["developer", "approver", "viewer"] as const) {
      const response = await api("/v1/network/private_origins", { as: await tenant.as(role) });
      expect(response.status, role).toBe(403);
      expect(response.body.error.code).toBe("forbidden");
    }
    const byKey = await api("/v1/network/private_origins", { as: { key: tenant.key } });
    expect(byKey.status).toBe(403);
    expect(byKey.body.error.code).toBe("forbidden");
  });

  it("cannot be written: 405 with Allow: GET", async () => {
    for (const method of ["POST", "PUT", "PATCH", "DELETE"]) {
      const response = await api("/v1/network/private_origins", {
        method,
        json: { origins: ["http://10.0.0.1"] },
        as: await tenant.as("owner"),
      });
      expect(response.status, method).toBe(405);
      expect(response.body.error.code).toBe("method_not_allowed");
    }
    const after = await api("/v1/network/private_origins", { as: await tenant.as("owner") });
    expect(after.body.data.origins).toEqual(suiteOrigins());
  });
});

describe("private origins granted to one organization", () => {
  // A stack of its own on the suite's database: CRM Acme and model-sim granted to `granted` only,
  // a shared origin to every organization. `other` plays Globex next to the demo's Acme.
  const shared = "http://10.20.30.40";
  const crmOrigin = new URL(crmUrl).origin;
  let app: Awaited<ReturnType<typeof startApp>>;
  let granted: Tenant;
  let other: Tenant;
  const sessions = new Map<Tenant, Caller>();

  beforeAll(async () => {
    granted = await createTenant("pro");
    other = await createTenant("pro");
    app = await startApp({
      ...process.env,
      NODE_ENV: "production",
      ...testNetwork(),
      GUICHET_PRIVATE_ORIGINS: `${crmOrigin}=${granted.slug}|t-nobody, ${simBaseUrl}=${granted.slug},${shared}=*`,
    });
    for (const who of [granted, other]) sessions.set(who, await signIn(who.emails.admin, "guichet-demo", app.baseUrl));
  }, 120_000);

  afterAll(async () => {
    await app?.stop();
  });

  async function call(who: Tenant, path: string, init: { method?: string; json?: unknown } = {}) {
    const response = await fetch(`${app.baseUrl}${path}`, {
      method: init.method ?? (init.json !== undefined ? "POST" : "GET"),
      headers: {
        cookie: sessions.get(who)!.cookie!,
        ...(init.json !== undefined ? { "content-type": "application/json" } : {}),
      },
      body: init.json !== undefined ? JSON.stringify(init.json) : undefined,
    });
    const text = await response.text();
    return { status: response.status, body: text ? JSON.parse(text) : null };
  }

  const refused = (response: { status: number; body: any }, field: string) => {
    expect(response.status, JSON.stringify(response.body)).toBe(422);
    expect(response.body.error).toMatchObject({ code: "url_not_allowed", errors: [{ field, code: "loopback" }] });
  };

  it("lists to each organization only the origins granted to it", async () => {
    expect((await call(granted, "/v1/network/private_origins")).body.data.origins).toEqual([
      crmOrigin,
      simBaseUrl,
      shared,
    ]);
    expect((await call(other, "/v1/network/private_origins")).body.data.origins).toEqual([shared]);
  });

  it("refuses another organization's connector on the origin (create: 422 url_not_allowed, nothing stored)", async () => {
    const db = await testDb();
    refused(await call(other, "/v1/mcp_servers", { json: { name: "CRM d'Acme", url: crmUrl } }), "url");
    expect(await db.mcpServer.count({ where: { organizationId: other.organizationId } })).toBe(0);
    const own = await call(granted, "/v1/mcp_servers", { json: { name: "CRM", url: crmUrl } });
    expect(own.status, JSON.stringify(own.body)).toBe(201);
    // The granted organization's connector really reaches it: a sync lists CRM Acme's tools.
    const synced = await call(granted, `/v1/mcp_servers/${own.body.data.id}/sync`, { method: "POST" });
    expect(synced.status, JSON.stringify(synced.body)).toBe(200);
    expect(synced.body.sync.added).toContain("get_customer");
  });

  it("refuses moving another organization's public connector onto the origin; the stored row is unchanged", async () => {
    const db = await testDb();
    const publicUrl = `http://crm.test:${new URL(crmUrl).port}/mcp`;
    const created = await call(other, "/v1/mcp_servers", { json: { name: "CRM public", url: publicUrl } });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    const id = created.body.data.id;
    const before = await db.mcpServer.findUniqueOrThrow({ where: { id } });
    refused(await call(other, `/v1/mcp_servers/${id}`, { method: "PATCH", json: { url: crmUrl } }), "url");
    expect(await db.mcpServer.findUniqueOrThrow({ where: { id } })).toEqual(before);
  });

  it("refuses another organization's webhook endpoint on the origin", async () => {
    const db = await testDb();
    const json = { url: `${crmOrigin}/hooks`, events: ["run.completed"] };
    refused(await call(other, "/v1/webhook_endpoints", { json }), "url");
    expect(await db.webhookEndpoint.count({ where: { organizationId: other.organizationId } })).toBe(0);
    const own = await call(granted, "/v1/webhook_endpoints", { json });
    expect(own.status, JSON.stringify(own.body)).toBe(201);
  });

  it("refuses another organization's model provider on the origin; the granted one's test reaches it", async () => {
    const db = await testDb();
    const json = { base_url: `${simBaseUrl}/v1`, api_key: "sk-sim-suite" };
    refused(await call(other, "/v1/model_providers/anthropic", { method: "PUT", json }), "base_url");
    expect(await db.modelProvider.count({ where: { organizationId: other.organizationId } })).toBe(0);
    const own = await call(granted, "/v1/model_providers/anthropic", { method: "PUT", json });
    expect(own.status, JSON.stringify(own.body)).toBe(200);
    const test = await call(granted, "/v1/model_providers/anthropic/test", { method: "POST" });
    expect(test.body.data).toMatchObject({ ok: true, result: "ok" });
  });

  it("refuses to start on a bare origin, naming the entry and the syntax", { timeout: 60_000 }, async () => {
    await expect(
      startApp({ ...process.env, NODE_ENV: "production", ...testNetwork(), GUICHET_PRIVATE_ORIGINS: crmOrigin }),
    ).rejects.toThrow(
      `GUICHET_PRIVATE_ORIGINS entry "${crmOrigin}" has no grant; expected <origin>=<slug>[|<slug>...] or <origin>=*`,
    );
  });
});
