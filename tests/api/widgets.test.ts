import { beforeAll, describe, expect, it } from "vitest";
import { createAgent } from "./dispatch-fixtures";
import { api, createTenant, testDb, type Tenant } from "./helpers";

// /v1/widgets: a chat bubble on an agent. Validation names the refused entry,
// the signing secret is shown once (creation and rotation), rotations really
// replace, another organization's widget is 404, and each change is audited.

let acme: Tenant;
let other: Tenant;
let agentId: string;

beforeAll(async () => {
  [acme, other] = await Promise.all([createTenant("pro"), createTenant("pro")]);
  agentId = (await createAgent(acme, { name: "Adresse" })).id;
});

const body = (extra: Record<string, unknown> = {}) => ({
  agent: agentId,
  name: "Boutique",
  allowed_origins: ["https://shop.example", "http://localhost:4020"],
  ...extra,
});

async function widgetCount(organizationId: string) {
  return (await testDb()).widget.count({ where: { organizationId } });
}

describe("POST /v1/widgets", () => {
  it("creates a widget with defaults, returns its signing secret once, and audits it", async () => {
    const response = await api("/v1/widgets", { json: body(), as: { key: acme.key } });
    expect(response.status).toBe(201);
    const widget = response.body.data;
    expect(widget).toMatchObject({
      id: expect.stringMatching(/^wdg_/),
      agent: agentId,
      public_key: expect.stringMatching(/^pk_[A-Za-z0-9_-]{20,}$/),
      signing_secret: expect.stringMatching(/^wsec_/),
      identity: "anonymous",
      capabilities: "read",
      active: true,
      appearance: { title: "Assistant", starter_prompts: [], position: "right", language: "fr" },
      limits: { messages_per_visitor_per_hour: 30, conversations_per_day: 200, messages_per_conversation: 40 },
      usage: { conversations: 0, messages: 0, preview_conversations: 0 },
    });
    expect(widget.signing_secret.startsWith(widget.signing_secret_prefix)).toBe(true);
    const read = await api(`/v1/widgets/${widget.id}`, { as: { key: acme.key } });
    expect(read.status).toBe(200);
    expect(read.body.data.signing_secret).toBeUndefined();
    expect(JSON.stringify(read.body)).not.toContain(widget.signing_secret);
    const stored = await (await testDb()).widget.findUniqueOrThrow({ where: { id: widget.id } });
    expect(stored.secretEncrypted).not.toContain(widget.signing_secret.slice(5));
    const audit = await (
      await testDb()
    ).auditEvent.findFirst({
      where: { organizationId: acme.organizationId, action: "widget.created", targetId: widget.id },
    });
    expect(audit?.details).toMatchObject({ agent: agentId, capabilities: "read" });
    expect(JSON.stringify(audit)).not.toContain(widget.signing_secret);
  });

  it.each([
    ["http://shop.example", "https:// only"],
    ["https://*.shop.example", "wildcards"],
    ["https://shop.example/", "no path"],
    ["https://shop.example/boutique", "no path"],
    ["https://user:pw@shop.example", "credentials"],
    ["shop.example", "not an origin"],
    ["javascript:alert(1)", "https:// only"],
  ])("refuses the allowed origin %s as invalid_parameter naming the entry, and stores nothing", async (origin, why) => {
    const before = await widgetCount(acme.organizationId);
    const response = await api("/v1/widgets", {
      json: body({ allowed_origins: ["https://ok.example", origin] }),
      as: { key: acme.key },
    });
    expect(response.status).toBe(400);
    expect(response.body.error.code).toBe("invalid_parameter");
    expect(response.body.error.errors).toEqual([
      { field: "allowed_origins[1]", code: "custom", message: expect.stringContaining(JSON.stringify(origin)) },
    ]);
    expect(response.body.error.errors[0].message).toContain(why);
    expect(await widgetCount(acme.organizationId)).toBe(before);
  });

  it.each([
    [{ allowed_origins: [] }, "allowed_origins"],
    [{ allowed_origins: Array.from({ length: 21 }, (_, i) => `https://s${i}.example`) }, "allowed_origins"],
    [{ appearance: { accent_color: "red" } }, "appearance.accent_color"],
    [{ appearance: { starter_prompts: ["a", "b", "c", "d", "e"] } }, "appearance.starter_prompts"],
    [{ appearance: { language: "de" } }, "appearance.language"],
    [{ identity: "magic" }, "identity"],
    [{ capabilities: "admin" }, "capabilities"],
    [{ limits: { messages_per_visitor_per_hour: 0 } }, "limits.messages_per_visitor_per_hour"],
  ])("refuses %j at %s", async (extra, field) => {
    const before = await widgetCount(acme.organizationId);
    const response = await api("/v1/widgets", { json: body(extra), as: { key: acme.key } });
    expect(response.status).toBe(400);
    expect(response.body.error.code).toBe("invalid_parameter");
    expect(response.body.error.errors[0].field).toBe(field);
    expect(await widgetCount(acme.organizationId)).toBe(before);
  });

  it("refuses an unknown key as unknown_parameter and another organization's agent as 404", async () => {
    const unknown = await api("/v1/widgets", { json: body({ theme: "dark" }), as: { key: acme.key } });
    expect(unknown.status).toBe(400);
    expect(unknown.body.error.code).toBe("unknown_parameter");
    const before = await widgetCount(other.organizationId);
    const foreign = await api("/v1/widgets", { json: body(), as: { key: other.key } });
    expect(foreign.status).toBe(404);
    expect(foreign.body.error.code).toBe("not_found");
    expect(await widgetCount(other.organizationId)).toBe(before);
  });

  it("needs agents:write to create and agents:read to read", async () => {
    const reader = await acme.keyWith(["agents:read"]);
    const refused = await api("/v1/widgets", { json: body(), as: { key: reader } });
    expect(refused.status).toBe(403);
    expect(refused.body.error.code).toBe("insufficient_scope");
    expect((await api("/v1/widgets", { as: { key: reader } })).status).toBe(200);
    const runsOnly = await acme.keyWith(["runs:write"]);
    expect((await api("/v1/widgets", { as: { key: runsOnly } })).status).toBe(403);
  });
});

describe("/v1/widgets/{widget}", () => {
  it("updates field by field, rotates the public key and the secret, deletes; another organization gets 404", async () => {
    const created = (await api("/v1/widgets", { json: body(), as: { key: acme.key } })).body.data;
    const patched = await api(`/v1/widgets/${created.id}`, {
      method: "PATCH",
      json: { appearance: { title: "Aide", starter_prompts: ["Changer mon adresse"] }, capabilities: "read_write" },
      as: { key: acme.key },
    });
    expect(patched.status).toBe(200);
    expect(patched.body.data).toMatchObject({
      capabilities: "read_write",
      appearance: { title: "Aide", starter_prompts: ["Changer mon adresse"], position: "right", language: "fr" },
      public_key: created.public_key,
    });
    const badPatch = await api(`/v1/widgets/${created.id}`, {
      method: "PATCH",
      json: { allowed_origins: ["https://ok.example", "https://bad.example/path"] },
      as: { key: acme.key },
    });
    expect(badPatch.status).toBe(400);
    expect(badPatch.body.error.errors[0].field).toBe("allowed_origins[1]");

    for (const [method, path] of [
      ["GET", ""],
      ["PATCH", ""],
      ["POST", "/rotate_public_key"],
      ["POST", "/rotate_signing_secret"],
      ["GET", "/conversations"],
      ["DELETE", ""],
    ]) {
      const foreign = await api(`/v1/widgets/${created.id}${path}`, {
        method,
        json: method === "PATCH" ? { name: "volé" } : undefined,
        as: { key: other.key },
      });
      expect(foreign.status, `${method} ${path}`).toBe(404);
    }

    const rotated = await api(`/v1/widgets/${created.id}/rotate_public_key`, { method: "POST", as: { key: acme.key } });
    expect(rotated.status).toBe(200);
    expect(rotated.body.data.public_key).toMatch(/^pk_/);
    expect(rotated.body.data.public_key).not.toBe(created.public_key);
    const secret = await api(`/v1/widgets/${created.id}/rotate_signing_secret`, {
      method: "POST",
      as: { key: acme.key },
    });
    expect(secret.status).toBe(200);
    expect(secret.body.data.signing_secret).toMatch(/^wsec_/);
    expect(secret.body.data.signing_secret).not.toBe(created.signing_secret);
    const actions = (
      await (
        await testDb()
      ).auditEvent.findMany({
        where: { organizationId: acme.organizationId, targetId: created.id },
        orderBy: { createdAt: "asc" },
      })
    ).map((event) => event.action);
    expect(actions).toEqual(["widget.created", "widget.updated", "widget.public_key_rotated", "widget.secret_rotated"]);

    const deleted = await api(`/v1/widgets/${created.id}`, { method: "DELETE", as: { key: acme.key } });
    expect(deleted.status).toBe(200);
    expect((await api(`/v1/widgets/${created.id}`, { as: { key: acme.key } })).status).toBe(404);
  });
});
