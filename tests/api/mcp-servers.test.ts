import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startAcmeCrm, type AcmeCrmServer } from "@/connectors/acme-crm/server";
import { api, createTenant, crmFaults, crmUrl, dataDir, testDb, type Tenant } from "./helpers";
import {
  catalogEntry,
  connectServer,
  garbageServer,
  patchServer,
  patchTool,
  reviewTool,
  serverTools,
  syncServer,
} from "./mcp-helpers";

// /v1/mcp_servers: connect, sync over the real protocol, review; failures that
// change nothing; SSRF; roles; another organization's servers are 404.

let acme: Tenant;
let other: Tenant;
let tokenCrm: AcmeCrmServer;
/** A second CRM Acme on loopback, reached under a public-looking test name (only CRM Acme's main origin is allowlisted). */
let tokenCrmUrl: string;

beforeAll(async () => {
  acme = await createTenant("pro");
  other = await createTenant("pro");
  tokenCrm = await startAcmeCrm({
    port: 0,
    host: "127.0.0.2",
    dbPath: path.join(dataDir, "crm-with-token.sqlite"),
    token: "crm-org-token-123",
  });
  tokenCrmUrl = tokenCrm.url.replace("127.0.0.2", "crm-token.alt.test");
});
afterAll(async () => {
  await crmFaults({ tool_schema_variant: 1 });
  await tokenCrm?.close();
});

async function storedTools(serverId: number) {
  const db = await testDb();
  return db.mcpTool.findMany({ where: { serverId }, orderBy: { name: "asc" } });
}

describe("connecting a server", () => {
  it("creates it (201) and never returns or stores the token in clear", async () => {
    const response = await api("/v1/mcp_servers", {
      json: { name: "CRM privé", url: tokenCrmUrl, auth: "org_token", token: "crm-org-token-123" },
      as: await acme.as("admin"),
    });
    expect(response.status).toBe(201);
    expect(response.body.data).toEqual({
      id: expect.any(Number),
      name: "CRM privé",
      url: tokenCrmUrl,
      auth: "org_token",
      active: true,
      has_token: true,
      oauth_client_id: null,
      has_oauth_client_secret: false,
      tool_count: 0,
      tools_needing_review: 0,
      last_synced_at: null,
      last_sync_error: null,
      created_at: expect.stringMatching(/\+00:00$/),
      updated_at: expect.stringMatching(/\+00:00$/),
    });
    expect(JSON.stringify(response.body)).not.toContain("crm-org-token-123");
    const stored = await (await testDb()).mcpServer.findUniqueOrThrow({ where: { id: response.body.data.id } });
    expect(stored.tokenCiphertext).toBeTruthy();
    expect(stored.tokenCiphertext).not.toContain("crm-org-token-123");

    // The stored token is really used: sync succeeds against the server that requires it.
    const sync = await syncServer(acme, response.body.data.id);
    expect(sync.status).toBe(200);
    expect(sync.body.sync.added).toHaveLength(11);
  });

  it("uses the new token after a PATCH, and a wrong one fails the sync with unauthorized", async () => {
    const id = await connectServer(acme, {
      name: "CRM jeton",
      url: tokenCrmUrl,
      auth: "org_token",
      token: "wrong-token-000",
    });
    const failed = await syncServer(acme, id);
    expect(failed.status).toBe(422);
    expect(failed.body.error).toMatchObject({ code: "mcp_sync_failed", reason: { code: "unauthorized" } });
    expect((await patchServer(acme, id, { token: "crm-org-token-123" })).status).toBe(200);
    expect((await syncServer(acme, id)).status).toBe(200);
  });

  it("fails the sync clearly when the stored token can no longer be decrypted", async () => {
    const id = await connectServer(acme, {
      name: "CRM clé perdue",
      url: tokenCrmUrl,
      auth: "org_token",
      token: "crm-org-token-123",
    });
    await (await testDb()).mcpServer.update({ where: { id }, data: { tokenCiphertext: "v1.AAAA.BBBB.CCCC" } });
    const response = await syncServer(acme, id);
    expect(response.status).toBe(422);
    expect(response.body.error).toMatchObject({ code: "mcp_sync_failed", reason: { code: "unauthorized" } });
    expect(response.body.error.message).toContain("give the connector its token again");
  });

  it.each([
    ["org_token without a token", { auth: "org_token" }, 400, "invalid_parameter", "token"],
    ["a token on a server without org_token", { auth: "none", token: "abc" }, 400, "invalid_parameter", "token"],
    ["an unknown auth mode", { auth: "basic" }, 400, "invalid_parameter", "auth"],
    ["a non-http URL", { url: "ftp://example.com/mcp" }, 400, "invalid_parameter", "url"],
    ["an empty name", { name: " " }, 400, "invalid_parameter", "name"],
    ["a name of 101 characters", { name: "n".repeat(101) }, 400, "invalid_parameter", "name"],
    ["an unknown field", { region: "eu" }, 400, "unknown_parameter", "region"],
  ])("refuses %s", async (_label, body, status, code, field) => {
    const response = await api("/v1/mcp_servers", {
      json: { name: "X", url: crmUrl, ...body },
      as: await acme.as("admin"),
    });
    expect(response.status).toBe(status);
    expect(response.body.error.code).toBe(code);
    expect(response.body.error.errors.map((e: { field: string }) => e.field)).toContain(field);
  });

  it("accepts a name of exactly 100 characters", async () => {
    const response = await api("/v1/mcp_servers", {
      json: { name: "n".repeat(100), url: crmUrl },
      as: await acme.as("admin"),
    });
    expect(response.status).toBe(201);
  });
});

describe("SSRF rules on server URLs", () => {
  it.each([
    ["the cloud metadata address", "http://169.254.169.254/mcp", "metadata"],
    ["a metadata host name", "http://metadata.google.internal/mcp", "metadata"],
    ["an IPv4-mapped metadata address", "http://[::ffff:169.254.169.254]/mcp", "metadata"],
    ["a link-local address", "http://169.254.10.1/mcp", "link_local"],
    ["a private range (not allowed by this operator)", "http://10.1.2.3/mcp", "private"],
    ["a loopback origin outside the operator's allowlist", "http://127.0.0.1:9/mcp", "loopback"],
    ["CRM Acme's port under another host name", crmUrl.replace("127.0.0.1", "localhost"), "loopback"],
    ["credentials in the URL", "http://user:pass@127.0.0.1:9/mcp", "credentials"],
    ["the unspecified address", "http://0.0.0.0/mcp", "reserved"],
  ])("refuses %s with 422 url_not_allowed", async (_label, url, reason) => {
    const before = await (await testDb()).mcpServer.count({ where: { organizationId: acme.organizationId } });
    const response = await api("/v1/mcp_servers", { json: { name: "SSRF", url }, as: await acme.as("admin") });
    expect(response.status).toBe(422);
    expect(response.body.error).toMatchObject({ code: "url_not_allowed", errors: [{ field: "url", code: reason }] });
    expect(await (await testDb()).mcpServer.count({ where: { organizationId: acme.organizationId } })).toBe(before);
  });

  it("refuses moving an existing server to a forbidden URL and keeps the old one", async () => {
    const id = await connectServer(acme, { name: "Déplacé" });
    const response = await patchServer(acme, id, { url: "http://169.254.169.254/latest/meta-data" });
    expect(response.status).toBe(422);
    expect(response.body.error.code).toBe("url_not_allowed");
    expect((await (await testDb()).mcpServer.findUniqueOrThrow({ where: { id } })).url).toBe(crmUrl);
  });
});

describe("sync and review over the real protocol", () => {
  let id: number;

  beforeAll(async () => {
    id = await connectServer(acme, { name: "CRM Acme" });
  });

  it("records every tool with its schemas, annotations and a fingerprint, all waiting for review", async () => {
    const sync = await syncServer(acme, id);
    expect(sync.status).toBe(200);
    expect(sync.body.sync).toEqual({
      added: [
        "get_customer",
        "list_orders",
        "preview_address_change",
        "commit_address_change",
        "get_operation_status",
        "send_email",
        "refund_payment",
        "suspend_invoice_delivery",
        "suspend_all_invoice_delivery",
        "get_job_status",
        "cancel_job",
      ],
      changed: [],
      removed: [],
      unchanged: [],
      live_fact_enums: [],
    });
    expect(sync.body.data).toMatchObject({
      tool_count: 11,
      tools_needing_review: 11,
      last_sync_error: null,
      last_synced_at: expect.any(String),
    });
    const tools = await serverTools(acme, id);
    const commit = tools.find((t) => t.name === "commit_address_change")!;
    expect(commit).toMatchObject({
      key: `mcp_${id}_commit_address_change`,
      status: "needs_review",
      enabled: true,
      available: false,
      reason: { code: "mcp_tool_needs_review" },
      writes_data: true,
      suggested_writes_data: true,
      annotations: { readOnlyHint: false },
      reviewed_at: null,
      removed_at: null,
      fingerprint: expect.stringMatching(/^[0-9a-f]{64}$/),
    });
    expect(commit.input_schema.properties.destination).toBeTruthy();
    expect(commit.changes.map((c: { field: string }) => c.field)).toEqual([
      "description",
      "input_schema",
      "output_schema",
    ]);
    expect(tools.find((t) => t.name === "get_customer")).toMatchObject({
      writes_data: false,
      suggested_writes_data: false,
    });
  });

  it("refuses a review of a version the reviewer was not shown (409 mcp_tool_changed)", async () => {
    const response = await patchTool(acme, id, "refund_payment", {
      reviewed: true,
      fingerprint: "0".repeat(64),
      writes_data: true,
    });
    expect(response.status).toBe(409);
    expect(response.body.error.code).toBe("mcp_tool_changed");
    expect((await storedTools(id)).find((t) => t.name === "refund_payment")?.reviewedFingerprint).toBeNull();
  });

  it("requires the fingerprint with reviewed: true", async () => {
    const response = await patchTool(acme, id, "refund_payment", { reviewed: true });
    expect(response.status).toBe(400);
    expect(response.body.error.errors[0].field).toBe("fingerprint");
  });

  it("records the review: who, when, the version, and writes_data as decided (annotations are only hints)", async () => {
    // The hint says read-only; the reviewer decides it writes.
    const reviewed = await reviewTool(acme, id, "get_operation_status", { writes_data: true });
    expect(reviewed).toMatchObject({
      status: "reviewed",
      available: true,
      writes_data: true,
      suggested_writes_data: false,
      changes: [],
    });
    const stored = (await storedTools(id)).find((t) => t.name === "get_operation_status")!;
    expect(stored.reviewedFingerprint).toBe(stored.fingerprint);
    expect(stored.reviewedById).toMatch(/^mem_/);
    expect(await catalogEntry(acme, `mcp_${id}_get_operation_status`)).toMatchObject({
      available: true,
      writes_data: true,
    });
  });

  it("marks a tool whose schema changed as needs_review, shows what changed, and keeps the others reviewed", async () => {
    await reviewTool(acme, id, "get_customer", { writes_data: false });
    await crmFaults({ tool_schema_variant: 2 });
    const sync = await syncServer(acme, id);
    expect(sync.status).toBe(200);
    expect(sync.body.sync.changed).toEqual(["get_customer"]);
    expect(sync.body.sync.unchanged).toHaveLength(10);
    const tool = (await serverTools(acme, id)).find((t) => t.name === "get_customer")!;
    expect(tool).toMatchObject({
      status: "needs_review",
      available: false,
      reason: { code: "mcp_tool_needs_review" },
      writes_data: false,
    });
    expect(tool.changes.map((c: { field: string }) => c.field)).toEqual([
      "description",
      "input_schema",
      "output_schema",
    ]);
    const input = tool.changes.find((c: { field: string }) => c.field === "input_schema");
    expect(input.before.properties.include).toBeUndefined();
    expect(input.after.properties.include).toBeTruthy();
    expect((await serverTools(acme, id)).find((t) => t.name === "get_operation_status")).toMatchObject({
      status: "reviewed",
      available: true,
    });

    // Back to the reviewed version: nothing left to review.
    await crmFaults({ tool_schema_variant: 1 });
    await syncServer(acme, id);
    expect((await serverTools(acme, id)).find((t) => t.name === "get_customer")).toMatchObject({
      status: "reviewed",
      available: true,
      changes: [],
    });
  });

  it.each([
    ["a dead URL", async () => ({ url: "http://dead.test:9/mcp", close() {} }), "unreachable"],
    ["a server answering garbage JSON", () => garbageServer('{"hello":"world"}'), "protocol"],
    ["a server answering HTML", () => garbageServer("<html>Bienvenue</html>", "text/html"), "protocol"],
    ["a server that never answers (10 s deadline)", () => garbageServer(null), "timeout"],
  ])("fails the sync against %s with a clear error and loses nothing", async (_label, start, kind) => {
    const before = await storedTools(id);
    const peer = await start();
    try {
      expect((await patchServer(acme, id, { url: peer.url })).status).toBe(200);
      const response = await syncServer(acme, id);
      expect(response.status).toBe(422);
      expect(response.body.error).toMatchObject({ code: "mcp_sync_failed", reason: { code: kind } });
      expect(response.body.error.message).toContain("Nothing was changed");
      expect(await storedTools(id)).toEqual(before);
      const server = await api(`/v1/mcp_servers/${id}`, { as: await acme.as("admin") });
      expect(server.body.data).toMatchObject({ tool_count: 11, last_sync_error: { code: kind } });
    } finally {
      peer.close();
      await patchServer(acme, id, { url: crmUrl });
    }
    expect((await syncServer(acme, id)).body.data.last_sync_error).toBeNull();
  });
});

describe("deleting a server", () => {
  it("removes it and its tools from the catalog", async () => {
    const id = await connectServer(acme, { name: "Éphémère" });
    await syncServer(acme, id);
    const response = await api(`/v1/mcp_servers/${id}`, { method: "DELETE", as: await acme.as("owner") });
    expect(response.status).toBe(200);
    expect(response.body.data).toEqual({ id, deleted: true });
    expect((await api(`/v1/mcp_servers/${id}`, { as: await acme.as("admin") })).status).toBe(404);
    expect(await storedTools(id)).toEqual([]);
    expect(await catalogEntry(acme, `mcp_${id}_get_customer`)).toBeUndefined();
  });
});

describe("who may manage connectors", () => {
  it.each(["developer", "approver", "viewer"] as const)("refuses a %s (403 forbidden)", async (role) => {
    const response = await api("/v1/mcp_servers", { as: await acme.as(role) });
    expect(response.status).toBe(403);
    expect(response.body.error.code).toBe("forbidden");
  });

  it("refuses API keys: connectors are managed by a signed-in person", async () => {
    const response = await api("/v1/mcp_servers", { json: { name: "X", url: crmUrl }, as: { key: acme.key } });
    expect(response.status).toBe(403);
    expect(response.body.error.code).toBe("forbidden");
  });

  it("answers 404 for another organization's server, on every route, and lists none of them", async () => {
    const id = await connectServer(acme, { name: "Confidentiel" });
    const admin = await other.as("admin");
    const attempts = [
      api(`/v1/mcp_servers/${id}`, { as: admin }),
      api(`/v1/mcp_servers/${id}`, { method: "PATCH", json: { active: false }, as: admin }),
      api(`/v1/mcp_servers/${id}`, { method: "DELETE", as: admin }),
      api(`/v1/mcp_servers/${id}/sync`, { method: "POST", as: admin }),
      api(`/v1/mcp_servers/${id}/tools`, { as: admin }),
      api(`/v1/mcp_servers/${id}/tools/get_customer`, { method: "PATCH", json: { enabled: false }, as: admin }),
    ];
    for (const response of await Promise.all(attempts)) {
      expect(response.status).toBe(404);
      expect(response.body.error.code).toBe("not_found");
    }
    expect((await api("/v1/mcp_servers", { as: admin })).body.data).toEqual([]);
    const stored = await (await testDb()).mcpServer.findUniqueOrThrow({ where: { id } });
    expect(stored.active).toBe(true);
  });

  it("answers 404 for ids that cannot exist", async () => {
    for (const raw of ["0", "abc", "-1", "99999999"]) {
      expect((await api(`/v1/mcp_servers/${raw}`, { as: await acme.as("admin") })).status, raw).toBe(404);
    }
  });
});
