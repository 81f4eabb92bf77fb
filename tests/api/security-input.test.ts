import { beforeAll, describe, expect, it } from "vitest";
import { createAgent, createRun, storedSteps } from "./dispatch-fixtures";
import { api, baseUrl, createTenant, storedText, testDb, type Tenant } from "./helpers";

// Hostile request shapes and secrets that must not be kept: each case is an attack
// that once worked (a replayable secret, a 500, a lax media type).

let tenant: Tenant;

beforeAll(async () => {
  tenant = await createTenant("pro");
});

describe("Idempotency-Key on a response that carries a secret", () => {
  it("never replays an API key secret and never stores it: 409 idempotency_secret_not_replayable, one key", async () => {
    const admin = await tenant.as("admin");
    const body = { name: "idem secret", scopes: ["tools:read"] };
    const first = await api("/v1/api_keys", { json: body, headers: { "idempotency-key": "secret-1" }, as: admin });
    expect(first.status).toBe(201);
    const secret: string = first.body.data.secret;
    expect(secret.length).toBeGreaterThan(20);
    const second = await api("/v1/api_keys", { json: body, headers: { "idempotency-key": "secret-1" }, as: admin });
    expect(second.status).toBe(409);
    expect(second.body.error.code).toBe("idempotency_secret_not_replayable");
    expect(JSON.stringify(second.body)).not.toContain(secret);
    const db = await testDb();
    expect(await db.apiKey.count({ where: { organizationId: tenant.organizationId, name: "idem secret" } })).toBe(1);
    const record = await db.idempotentRequest.findFirstOrThrow({
      where: { organizationId: tenant.organizationId, key: "secret-1" },
    });
    expect(record.state).toBe("done");
    expect(record.responseStatus).toBe(201);
    expect(await storedText()).not.toContain(secret);
    // The key still works: what was withheld is the copy, not the key. A new Idempotency-Key creates a new key.
    expect((await api("/v1/models", { as: { key: secret } })).status).toBe(200);
    const next = await api("/v1/api_keys", { json: body, headers: { "idempotency-key": "secret-2" }, as: admin });
    expect(next.status).toBe(201);
    expect(await db.apiKey.count({ where: { organizationId: tenant.organizationId, name: "idem secret" } })).toBe(2);
  });
});

describe("the JSON body reader", () => {
  const agentCount = async (name: string) =>
    (await testDb()).agent.count({ where: { organizationId: tenant.organizationId, name } });

  it("accepts application/json and application/*+json, refuses look-alikes with 415", async () => {
    const as = { key: tenant.key };
    for (const type of [
      "application/jsonx",
      "application/json-seq",
      "text/json",
      "application/x-json",
      "application/json+x",
    ]) {
      const refused = await api("/v1/agents", {
        body: JSON.stringify({ name: `typed ${type}` }),
        headers: { "content-type": type },
        as,
      });
      expect(refused.status, type).toBe(415);
      expect(refused.body.error.code).toBe("unsupported_media_type");
      expect(await agentCount(`typed ${type}`)).toBe(0);
    }
    const plain = await api("/v1/agents", {
      body: JSON.stringify({ name: "typed plain" }),
      headers: { "content-type": "Application/JSON; charset=utf-8" },
      as,
    });
    expect(plain.status).toBe(201);
    const suffixed = await api("/v1/agents", {
      body: JSON.stringify({ name: "typed suffix" }),
      headers: { "content-type": "application/merge-patch+json" },
      as,
    });
    expect(suffixed.status).toBe(201);
  });

  it("refuses a body nested deeper than the limit before parsing it: 400 json_too_deep, nothing stored", async () => {
    for (const depth of [65, 20_000]) {
      const deep = `{"name":"deep ${depth}","tools":${"[".repeat(depth)}${"]".repeat(depth)}}`;
      const response = await api("/v1/agents", {
        body: deep,
        headers: { "content-type": "application/json" },
        as: { key: tenant.key },
      });
      expect(response.status, String(depth)).toBe(400);
      expect(response.body.error.code).toBe("json_too_deep");
      expect(response.body.error.reason).toEqual({ max_depth: 64 });
      expect(await agentCount(`deep ${depth}`)).toBe(0);
    }
    // Brackets inside strings are text, not nesting.
    const inString = await api("/v1/agents", {
      json: { name: "[[[[", instructions: "{".repeat(500) },
      as: { key: tenant.key },
    });
    expect(inString.status).toBe(201);
  });

  it("refuses a lone UTF-16 surrogate in a value or a key: 400 invalid_parameter invalid_unicode", async () => {
    const lone = await api("/v1/agents", {
      body: '{"name":"x\\ud800y"}',
      headers: { "content-type": "application/json" },
      as: { key: tenant.key },
    });
    expect(lone.status).toBe(400);
    expect(lone.body.error.code).toBe("invalid_parameter");
    expect(lone.body.error.errors).toEqual([{ field: "name", code: "invalid_unicode", message: expect.any(String) }]);
    const loneLow = await api("/v1/agents", {
      body: '{"name":"ok","instructions":"\\udc00"}',
      headers: { "content-type": "application/json" },
      as: { key: tenant.key },
    });
    expect(loneLow.status).toBe(400);
    expect(loneLow.body.error.errors[0].field).toBe("instructions");
    const inKey = await api("/v1/agents", {
      body: '{"name":"ok2","\\ud83d":1}',
      headers: { "content-type": "application/json" },
      as: { key: tenant.key },
    });
    expect(inKey.status).toBe(400);
    expect(inKey.body.error.errors[0].code).toBe("invalid_unicode");
    expect(await agentCount("ok")).toBe(0);
    // A well-formed pair (an emoji) is fine.
    const pair = await api("/v1/agents", {
      body: '{"name":"emoji \\ud83d\\ude00"}',
      headers: { "content-type": "application/json" },
      as: { key: tenant.key },
    });
    expect(pair.status).toBe(201);
    expect(pair.body.data.name).toBe("emoji 😀");
  });
});

describe("JSON Schemas saved with an agent", () => {
  const nested = (levels: number) => {
    let schema: Record<string, unknown> = { type: "string" };
    for (let i = 0; i < levels; i++) schema = { type: "array", items: schema };
    return schema;
  };

  it("refuses a deep output_schema or a $ref loop with a clean 400 invalid_json_schema, nothing stored", async () => {
    const cases: [string, Record<string, unknown>, RegExp][] = [
      ["schema deep", { output_schema: nested(62) }, /deeper than 32 levels/],
      ["schema self", { output_schema: { $ref: "#" } }, /refers to itself in a loop/],
      [
        "schema ab",
        {
          client_tools: [
            {
              name: "loop",
              description: "d",
              parameters: { $defs: { a: { $ref: "#/$defs/b" }, b: { $ref: "#/$defs/a" } }, $ref: "#/$defs/a" },
            },
          ],
        },
        /refers to itself in a loop/,
      ],
    ];
    for (const [name, extra, message] of cases) {
      const response = await api("/v1/agents", { json: { name, ...extra }, as: { key: tenant.key } });
      expect(response.status, name).toBe(400);
      expect(response.body.error.code).toBe("invalid_parameter");
      expect(response.body.error.errors[0].code).toBe("invalid_json_schema");
      expect(response.body.error.errors[0].message).toMatch(message);
      expect(JSON.stringify(response.body)).not.toMatch(/call stack/i);
      expect(await (await testDb()).agent.count({ where: { organizationId: tenant.organizationId, name } })).toBe(0);
    }
  });
});

describe("tool-call arguments nested far too deep", () => {
  it("answers ARGUMENTS_TOO_LARGE and records the step, at 65, 5 000 and 20 000 levels, with or without Idempotency-Key", async () => {
    const agent = await createAgent(tenant, { tools: ["calculate"] });
    const runId: string = (await createRun(tenant, { agent: agent.id })).run.id;
    const cases: [number, Record<string, string>][] = [
      [65, {}],
      [5_000, {}],
      [20_000, { "idempotency-key": "deep-args-1" }],
    ];
    for (const [levels, headers] of cases) {
      const before = (await storedSteps(runId)).length;
      const body = `{"tool":"calculate","arguments":{"expression":${"[".repeat(levels)}${"]".repeat(levels)}}}`;
      const response = await api(`/v1/runs/${runId}/tool_calls`, {
        body,
        headers: { "content-type": "application/json", ...headers },
        as: { key: tenant.key },
      });
      expect(response.status, String(levels)).toBe(200);
      expect(response.body).toMatchObject({ ok: false, error: { code: "ARGUMENTS_TOO_LARGE", retryable: false } });
      const steps = await storedSteps(runId);
      expect(steps).toHaveLength(before + 1);
      expect(steps.at(-1)).toMatchObject({ status: "error", errorCode: "ARGUMENTS_TOO_LARGE" });
      expect(steps.at(-1)!.argumentsSha256).toMatch(/^[0-9a-f]{64}$/);
    }
    // Shallow arguments still run.
    const ok = await api(`/v1/runs/${runId}/tool_calls`, {
      json: { tool: "calculate", arguments: { expression: "2 * 3" } },
      as: { key: tenant.key },
    });
    expect(ok.body).toMatchObject({ ok: true, result: { result: 6 } });
  });
});

describe("Origin on cookie-authenticated writes", () => {
  it("refuses Origin: null and an unparseable Origin with 403 forbidden, nothing created", async () => {
    const admin = await tenant.as("admin");
    for (const origin of ["null", "not a url", "http://[::1"]) {
      const response = await api("/v1/api_keys", {
        json: { name: `origin ${origin}`, scopes: ["tools:read"] },
        headers: { origin },
        as: admin,
      });
      expect(response.status, origin).toBe(403);
      expect(response.body.error.code).toBe("forbidden");
    }
    const same = await api("/v1/api_keys", {
      json: { name: "origin same", scopes: ["tools:read"] },
      headers: { origin: baseUrl },
      as: admin,
    });
    expect(same.status).toBe(201);
    const db = await testDb();
    expect(
      await db.apiKey.count({ where: { organizationId: tenant.organizationId, name: { startsWith: "origin " } } }),
    ).toBe(1);
  });
});
