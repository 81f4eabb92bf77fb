import { beforeAll, describe, expect, it } from "vitest";
import { createScript } from "@/connectors/model-sim/control";
import { createAgent } from "./dispatch-fixtures";
import { models } from "./agents-helpers";
import { api, createTenant, simBaseUrl, storedText, testDb, type Caller, type Tenant } from "./helpers";
import { publicTestOrigin } from "./server";

// /v1/model_providers: an organization's own provider settings (base URL, API
// key encrypted at rest), which win over the environment's; the connection test
// against model-sim, a real OpenAI-compatible server (key sk-sim-suite).

const SIM_KEY = "sk-sim-suite";
// model-sim under a public-looking test name: reachable without being allowlisted.
const simPublic = () => `${publicTestOrigin(simBaseUrl, "sim")}/v1`;

let acme: Tenant;
let other: Tenant;
let admin: Caller;

beforeAll(async () => {
  [acme, other] = await Promise.all([createTenant("pro"), createTenant("pro")]);
  admin = await acme.as("admin");
});

const put = (provider: string, json: unknown, as = admin) =>
  api(`/v1/model_providers/${provider}`, { method: "PUT", json, as });
const stored = async (tenant: Tenant, provider: string) =>
  (await testDb()).modelProvider.findUnique({
    where: { organizationId_provider: { organizationId: tenant.organizationId, provider } },
  });

describe("GET /v1/model_providers", () => {
  it("lists the plan's providers with their models and where their settings come from", async () => {
    const response = await api("/v1/model_providers", { as: await other.as("owner") });
    expect(response.status).toBe(200);
    expect(response.body.data).toEqual([
      {
        provider: "anthropic",
        models: [{ id: models.sonnet, name: "Claude Sonnet" }],
        source: "none",
        base_url: null,
        default_base_url: "https://api.anthropic.com/v1",
        has_api_key: false,
        api_key_hint: null,
        updated_at: null,
      },
      {
        provider: "mistral",
        models: [
          { id: models.large, name: "Mistral Large" },
          { id: models.small, name: "Mistral Small" },
        ],
        // The suite's server points Mistral at model-sim by environment; its values are not served.
        source: "environment",
        base_url: null,
        default_base_url: "https://api.mistral.ai/v1",
        has_api_key: true,
        api_key_hint: null,
        updated_at: null,
      },
    ]);
    expect(JSON.stringify(response.body)).not.toContain(SIM_KEY);
  });

  it("is for owners and admins in a session: other roles 403, API keys 403", async () => {
    for (const role of ["developer", "approver", "viewer"] as const) {
      const caller = await acme.as(role);
      for (const attempt of [
        api("/v1/model_providers", { as: caller }),
        put("anthropic", { base_url: simPublic(), api_key: "sk-x" }, caller),
        api("/v1/model_providers/anthropic/test", { method: "POST", as: caller }),
        api("/v1/model_providers/anthropic", { method: "DELETE", as: caller }),
      ]) {
        const response = await attempt;
        expect(response.status).toBe(403);
        expect(response.body.error.code).toBe("forbidden");
      }
    }
    const byKey = await api("/v1/model_providers", { as: { key: acme.key } });
    expect(byKey.status).toBe(403);
    expect(await stored(acme, "anthropic")).toBeNull();
  });
});

describe("PUT /v1/model_providers/{provider}", () => {
  it("stores the key encrypted, bound to the origin, and never serves it", async () => {
    const key = `sk-secret-${Date.now()}-abcd`;
    const response = await put("anthropic", { base_url: simPublic(), api_key: key });
    expect(response.status).toBe(200);
    expect(response.body.data).toMatchObject({
      provider: "anthropic",
      source: "organization",
      base_url: simPublic(),
      has_api_key: true,
      api_key_hint: "abcd",
      updated_at: expect.any(String),
    });
    const listed = await api("/v1/model_providers", { as: admin });
    for (const text of [JSON.stringify(response.body), JSON.stringify(listed.body)]) expect(text).not.toContain(key);
    const row = await stored(acme, "anthropic");
    expect(row?.apiKeyCiphertext).toMatch(/^v2\./);
    // Not in clear in any table of the database.
    expect(await storedText()).not.toContain(key);
    // The other organization still sees the environment's (or no) settings.
    const theirs = await api("/v1/model_providers", { as: await other.as("admin") });
    expect(theirs.body.data.find((p: any) => p.provider === "anthropic").source).toBe("none");
  });

  it("keeps the key on the same origin, drops it when the base URL moves to another host, removes it on null", async () => {
    await put("anthropic", { base_url: simPublic(), api_key: "sk-keep-1234" });
    const same = await put("anthropic", { base_url: `${simPublic()}/` });
    expect(same.body.data).toMatchObject({ has_api_key: true, api_key_hint: "1234" });
    const moved = await put("anthropic", { base_url: `${publicTestOrigin(simBaseUrl, "elsewhere")}/v1` });
    expect(moved.body.data).toMatchObject({ has_api_key: false, api_key_hint: null });
    expect((await stored(acme, "anthropic"))?.apiKeyCiphertext).toBeNull();
    await put("anthropic", { base_url: simPublic(), api_key: "sk-keep-5678" });
    const removed = await put("anthropic", { base_url: simPublic(), api_key: null });
    expect(removed.body.data.has_api_key).toBe(false);
    expect((await stored(acme, "anthropic"))?.apiKeyCiphertext).toBeNull();
  });

  it("refuses bad bodies with typed errors and stores nothing", async () => {
    const cases: Array<[unknown, number, string, string | undefined]> = [
      [{ base_url: "not a url" }, 400, "invalid_parameter", "base_url"],
      [{ base_url: "ftp://models.example.com/v1" }, 400, "invalid_parameter", "base_url"],
      [{ base_url: "https://user:pw@models.example.com/v1" }, 400, "invalid_parameter", "base_url"],
      [{}, 400, "invalid_parameter", "base_url"],
      [{ base_url: simPublic(), api_key: "" }, 400, "invalid_parameter", "api_key"],
      [{ base_url: simPublic(), extra: 1 }, 400, "unknown_parameter", "extra"],
      // Private, loopback and metadata addresses: the operator's allowlist only.
      [{ base_url: "http://10.1.2.3/v1" }, 422, "url_not_allowed", "base_url"],
      [{ base_url: "http://127.0.0.1:9/v1" }, 422, "url_not_allowed", "base_url"],
      [{ base_url: "http://169.254.169.254/v1" }, 422, "url_not_allowed", "base_url"],
    ];
    for (const [body, status, code, field] of cases) {
      const response = await put("mistral", body);
      expect(response.status, JSON.stringify(body)).toBe(status);
      expect(response.body.error.code).toBe(code);
      if (field) expect(response.body.error.errors.map((e: any) => e.field)).toContain(field);
    }
    expect(await stored(acme, "mistral")).toBeNull();
  });

  it("accepts a private origin granted to the organization (GUICHET_PRIVATE_ORIGINS)", async () => {
    const response = await put("anthropic", { base_url: `${simBaseUrl}/v1`, api_key: SIM_KEY });
    expect(response.status).toBe(200);
    const test = await api("/v1/model_providers/anthropic/test", { method: "POST", as: admin });
    expect(test.body.data).toMatchObject({ ok: true, result: "ok" });
  });

  it("answers 404 for a provider the plan does not use", async () => {
    for (const provider of ["openai", "x".repeat(300)]) {
      const response = await put(provider, { base_url: simPublic() });
      expect(response.status).toBe(404);
      expect(response.body.error.code).toBe("not_found");
    }
    const free = await createTenant("free");
    const response = await put("anthropic", { base_url: simPublic() }, await free.as("owner"));
    expect(response.status).toBe(404);
    expect(await stored(free, "anthropic")).toBeNull();
  });
});

describe("POST /v1/model_providers/{provider}/test", () => {
  const test = (provider: string, as = admin) => api(`/v1/model_providers/${provider}/test`, { method: "POST", as });

  it("lists the provider's models with the right key, and types the failures", async () => {
    await put("anthropic", { base_url: simPublic(), api_key: SIM_KEY });
    const ok = await test("anthropic");
    expect(ok.status).toBe(200);
    expect(ok.body.data).toMatchObject({
      provider: "anthropic",
      ok: true,
      result: "ok",
      model_count: 1,
      http_status: 200,
      duration_ms: expect.any(Number),
    });

    await put("anthropic", { base_url: simPublic(), api_key: "sk-wrong" });
    expect((await test("anthropic")).body.data).toMatchObject({ ok: false, result: "unauthorized", http_status: 401 });

    // A closed port on a public-looking name: nothing listens there.
    await put("anthropic", { base_url: `${publicTestOrigin("http://127.0.0.1:9", "closed")}/v1`, api_key: SIM_KEY });
    expect((await test("anthropic")).body.data).toMatchObject({ ok: false, result: "unreachable" });
    expect(JSON.stringify(await test("anthropic"))).not.toContain(SIM_KEY);
  });

  it("tests the environment's settings when the organization has none, and says when nothing is configured", async () => {
    const theirs = await other.as("admin");
    expect((await test("mistral", theirs)).body.data).toMatchObject({ ok: true, result: "ok" });
    expect((await test("anthropic", theirs)).body.data).toMatchObject({ ok: false, result: "not_configured" });
    expect((await test("openai", theirs)).status).toBe(404);
  });
});

describe("managed runs use the organization's settings first", () => {
  const run = (agentId: string, marker: string, tenant: Tenant) =>
    api("/v1/runs", {
      json: { agent: agentId, input: "Bonjour", instructions: marker, wait: 60 },
      as: { key: tenant.key },
    });

  it("a model with no provider anywhere stays 503 and says where to configure it", async () => {
    const fresh = await createTenant("pro");
    const agent = await createAgent(fresh, { model: models.sonnet });
    const response = await run(agent.id, "", fresh);
    expect(response.status).toBe(503);
    expect(response.body.error.code).toBe("model_provider_unavailable");
    expect(response.body.error.message).toContain("« Modèles »");
    expect(response.body.error.message).toContain("GUICHET_MODEL_ANTHROPIC_API_KEY");
  });

  it("runs a model of a provider only the organization configured, and its settings override the environment's", async () => {
    const tenant = await createTenant("pro");
    const owner = await tenant.as("owner");
    await put("anthropic", { base_url: simPublic(), api_key: SIM_KEY }, owner);
    const sonnet = await createAgent(tenant, { model: models.sonnet });
    const script = await createScript(simBaseUrl, { turns: [{ text: "Réponse du fournisseur de l’organisation." }] });
    const ok = await run(sonnet.id, script.marker, tenant);
    expect(ok.status).toBe(201);
    expect(ok.body.data).toMatchObject({
      status: "completed",
      output: { text: "Réponse du fournisseur de l’organisation." },
    });

    // The environment's Mistral settings work; the organization's wrong key wins over them.
    await put("mistral", { base_url: simPublic(), api_key: "sk-wrong" }, owner);
    const large = await createAgent(tenant, { model: models.large });
    const refused = await run(large.id, "", tenant);
    expect(refused.body.data).toMatchObject({ status: "failed", error: { code: "model_error" } });
    // Back to the environment's settings.
    const removed = await api("/v1/model_providers/mistral", { method: "DELETE", as: owner });
    expect(removed.body.data.source).toBe("environment");
    expect(await stored(tenant, "mistral")).toBeNull();
  });
});
