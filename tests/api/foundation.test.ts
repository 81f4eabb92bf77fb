import { beforeAll, describe, expect, it } from "vitest";
import { api, baseUrl, createTenant, postUnendingChunkedBody, testDb, type Tenant } from "./helpers";

let acme: Tenant;
let other: Tenant;

beforeAll(async () => {
  acme = await createTenant("pro");
  other = await createTenant("free");
});

describe("health and conventions", () => {
  it("answers health with the database reachable", async () => {
    const response = await api("/api/health");
    expect(response.status).toBe(200);
    expect(response.body).toEqual({ status: "ok", database: "reachable" });
  });

  it("puts X-Request-Id on every response, errors included, matching the envelope", async () => {
    const ok = await api("/v1/models", { as: { key: acme.key } });
    expect(ok.headers.get("x-request-id")).toMatch(/^req_[0-9a-z]{26}$/);
    const refused = await api("/v1/models");
    expect(refused.status).toBe(401);
    expect(refused.body.error.code).toBe("unauthenticated");
    expect(refused.body.error.request_id).toBe(refused.headers.get("x-request-id"));
  });

  it("answers an unknown /v1 path with the 404 envelope", async () => {
    const response = await api("/v1/nothing-here", { as: { key: acme.key } });
    expect(response.status).toBe(404);
    expect(response.body.error.code).toBe("not_found");
  });

  it("answers a wrong method with 405 and Allow", async () => {
    const response = await api("/v1/models", { method: "DELETE", as: { key: acme.key } });
    expect(response.status).toBe(405);
    expect(response.body.error.code).toBe("method_not_allowed");
    expect(response.headers.get("allow")).toBe("GET");
  });

  it("serves the OpenAPI document generated from the zod schemas", async () => {
    const response = await api("/v1/openapi.json", { as: { key: acme.key } });
    expect(response.status).toBe(200);
    expect(response.body.openapi).toBe("3.1.0");
    expect(Object.keys(response.body.paths)).toEqual(
      expect.arrayContaining(["/v1/api_keys", "/v1/models", "/v1/tools"]),
    );
  });
});

describe("authentication and scopes", () => {
  it("refuses an unknown key and a malformed Authorization header", async () => {
    for (const authorization of ["Bearer gch_not-a-real-key", "Basic abc", "Bearer"]) {
      const response = await api("/v1/models", { headers: { authorization } });
      expect(response.status).toBe(401);
      expect(response.body.error.code).toBe("unauthenticated");
    }
  });

  it("refuses a key without the scope with 403 insufficient_scope", async () => {
    const filesOnly = await acme.keyWith(["files:read"]);
    const response = await api("/v1/models", { as: { key: filesOnly } });
    expect(response.status).toBe(403);
    expect(response.body.error.code).toBe("insufficient_scope");
    expect(response.body.error.reason.required_scopes).toContain("agents:read");
  });

  it("accepts any one of the alternative scopes", async () => {
    for (const scope of ["agents:read", "runs:read", "tools:read"] as const) {
      const response = await api("/v1/models", { as: { key: await acme.keyWith([scope]) } });
      expect(response.status).toBe(200);
    }
  });

  it("lets a signed-in member use the same handlers", async () => {
    const response = await api("/v1/models", { as: await acme.as("viewer") });
    expect(response.status).toBe(200);
    expect(response.body.data.find((m: { default: boolean }) => m.default)).toBeTruthy();
  });
});

describe("API keys", () => {
  it("are managed by signed-in people only: an API key gets 403", async () => {
    const response = await api("/v1/api_keys", { as: { key: acme.key } });
    expect(response.status).toBe(403);
    expect(response.body.error.code).toBe("forbidden");
  });

  it("refuses viewers and approvers", async () => {
    for (const role of ["viewer", "approver"] as const) {
      const response = await api("/v1/api_keys", {
        json: { name: "x", scopes: ["agents:read"] },
        as: await acme.as(role),
      });
      expect(response.status).toBe(403);
    }
  });

  it("creates a key shown once, stores only its hash, tracks last use and revokes", async () => {
    const dev = await acme.as("developer");
    const created = await api("/v1/api_keys", {
      json: { name: "CI", scopes: ["agents:read", "agents:read"] },
      as: dev,
    });
    expect(created.status).toBe(201);
    const { secret, id } = created.body.data;
    expect(secret).toMatch(/^gch_/);
    expect(created.body.data.scopes).toEqual(["agents:read"]);
    expect(created.body.data.last_used_at).toBeNull();

    const db = await testDb();
    const stored = await db.apiKey.findUniqueOrThrow({ where: { id } });
    expect(JSON.stringify(stored)).not.toContain(secret);
    expect(stored.secretHash).toMatch(/^[0-9a-f]{64}$/);

    const listed = await api("/v1/api_keys", { as: dev });
    expect(JSON.stringify(listed.body)).not.toContain(secret);

    expect((await api("/v1/models", { as: { key: secret } })).status).toBe(200);
    const afterUse = await db.apiKey.findUniqueOrThrow({ where: { id } });
    expect(afterUse.lastUsedAt).not.toBeNull();
    // A second use within the minute does not write again.
    expect((await api("/v1/models", { as: { key: secret } })).status).toBe(200);
    expect((await db.apiKey.findUniqueOrThrow({ where: { id } })).lastUsedAt).toEqual(afterUse.lastUsedAt);

    const revoked = await api(`/v1/api_keys/${id}`, { method: "DELETE", as: dev });
    expect(revoked.status).toBe(200);
    expect(revoked.body.data.revoked_at).not.toBeNull();
    const refused = await api("/v1/models", { as: { key: secret } });
    expect(refused.status).toBe(401);
  });

  it("answers 404 for another organization's key and leaves it alone", async () => {
    const theirs = await api("/v1/api_keys", {
      json: { name: "theirs", scopes: ["tools:read"] },
      as: await other.as("admin"),
    });
    const response = await api(`/v1/api_keys/${theirs.body.data.id}`, { method: "DELETE", as: await acme.as("admin") });
    expect(response.status).toBe(404);
    expect(response.body.error.code).toBe("not_found");
    const db = await testDb();
    expect((await db.apiKey.findUniqueOrThrow({ where: { id: theirs.body.data.id } })).revokedAt).toBeNull();
  });
});

describe("strict input", () => {
  it("names the unknown parameter", async () => {
    const response = await api("/v1/api_keys", {
      json: { name: "x", scopes: ["agents:read"], admin: true },
      as: await acme.as("admin"),
    });
    expect(response.status).toBe(400);
    expect(response.body.error.code).toBe("unknown_parameter");
    expect(response.body.error.errors[0].field).toBe("admin");
  });

  it("gives one errors[] entry per invalid field", async () => {
    const response = await api("/v1/api_keys", {
      json: { name: "", scopes: ["root:all"] },
      as: await acme.as("admin"),
    });
    expect(response.status).toBe(400);
    expect(response.body.error.code).toBe("invalid_parameter");
    const fields = response.body.error.errors.map((e: { field: string }) => e.field).sort();
    expect(fields).toEqual(["name", "scopes[0]"]);
  });

  it("refuses malformed JSON, a non-JSON content type and an oversized body", async () => {
    const admin = await acme.as("admin");
    const malformed = await api("/v1/api_keys", {
      body: "{nope",
      headers: { "content-type": "application/json" },
      as: admin,
    });
    expect(malformed.status).toBe(400);
    expect(malformed.body.error.code).toBe("invalid_json");
    const wrongType = await api("/v1/api_keys", {
      body: "name=x",
      headers: { "content-type": "text/plain" },
      as: admin,
    });
    expect(wrongType.status).toBe(415);
    expect(wrongType.body.error.code).toBe("unsupported_media_type");
    const huge = await api("/v1/api_keys", { json: { name: "x".repeat(1_100_000), scopes: [] }, as: admin });
    expect(huge.status).toBe(413);
    expect(huge.body.error.code).toBe("payload_too_large");
    const db = await testDb();
    expect(await db.apiKey.count({ where: { organizationId: acme.organizationId, name: "x" } })).toBe(0);
  });

  it("refuses a chunked body as soon as it passes the limit, without waiting for its end, and stores nothing", async () => {
    const name = `chunked ${Date.now()}`;
    const answer = await postUnendingChunkedBody(
      `${baseUrl}/v1/agents`,
      { authorization: `Bearer ${acme.key}` },
      `{"name":"${name}","instructions":"`,
      1_100_000,
    );
    expect(answer.status).toBe(413);
    expect(answer.body.error.code).toBe("payload_too_large");
    expect(await (await testDb()).agent.count({ where: { organizationId: acme.organizationId, name } })).toBe(0);
  });
});

describe("Idempotency-Key", () => {
  it("replays the first response for the same key and body, and creates one agent", async () => {
    const body = { name: "idem agent" };
    const first = await api("/v1/agents", {
      json: body,
      headers: { "idempotency-key": "idem-1" },
      as: { key: acme.key },
    });
    const second = await api("/v1/agents", {
      json: body,
      headers: { "idempotency-key": "idem-1" },
      as: { key: acme.key },
    });
    expect(first.status).toBe(201);
    expect(second.status).toBe(201);
    expect(second.body).toEqual(first.body);
    expect(second.headers.get("idempotent-replayed")).toBe("true");
    const db = await testDb();
    expect(await db.agent.count({ where: { organizationId: acme.organizationId, name: "idem agent" } })).toBe(1);
  });

  it("refuses the same key with another body: 422 idempotency_key_reused", async () => {
    const admin = await acme.as("admin");
    await api("/v1/api_keys", {
      json: { name: "idem-2", scopes: ["tools:read"] },
      headers: { "idempotency-key": "idem-2" },
      as: admin,
    });
    const reused = await api("/v1/api_keys", {
      json: { name: "idem-2b", scopes: ["tools:read"] },
      headers: { "idempotency-key": "idem-2" },
      as: admin,
    });
    expect(reused.status).toBe(422);
    expect(reused.body.error.code).toBe("idempotency_key_reused");
    const db = await testDb();
    expect(await db.apiKey.count({ where: { organizationId: acme.organizationId, name: "idem-2b" } })).toBe(0);
  });

  it("answers 409 request_in_progress while the first request with the key is running", async () => {
    const admin = await acme.as("admin");
    const db = await testDb();
    const member = await db.member.findUniqueOrThrow({ where: { email: acme.emails.admin } });
    const { createHash } = await import("node:crypto");
    const body = { name: "slow", scopes: ["tools:read"] };
    // The row a first, still-running request holds (its hash is the one this request computes).
    await db.idempotentRequest.create({
      data: {
        organizationId: acme.organizationId,
        principal: member.id,
        key: "idem-3",
        method: "POST",
        path: "/v1/api_keys",
        requestHash: createHash("sha256")
          .update(`POST /v1/api_keys\n${JSON.stringify(body)}`)
          .digest("hex"),
        state: "in_progress",
        expiresAt: new Date(Date.now() + 60_000),
      },
    });
    const response = await api("/v1/api_keys", { json: body, headers: { "idempotency-key": "idem-3" }, as: admin });
    expect(response.status).toBe(409);
    expect(response.body.error.code).toBe("request_in_progress");
    expect(await db.apiKey.count({ where: { organizationId: acme.organizationId, name: "slow" } })).toBe(0);
  });
});
