import { beforeAll, describe, expect, it } from "vitest";
import { agentKeys, arrangePlan, createAgent, isoWithOffset, models, setPlan } from "./agents-helpers";
import { api, createTenant, testDb, type Tenant } from "./helpers";

// Every field of an agent (name, model, instructions, tools…) through the API.

let acme: Tenant;
let globex: Tenant;

beforeAll(async () => {
  acme = await createTenant("pro");
  globex = await createTenant("free");
});

const post = (tenant: Tenant, body: unknown) => api("/v1/agents", { json: body, as: { key: tenant.key } });
const patch = (tenant: Tenant, id: string, body: unknown) =>
  api(`/v1/agents/${id}`, { method: "PATCH", json: body, as: { key: tenant.key } });
const agentCount = async (tenant: Tenant) =>
  (await testDb()).agent.count({ where: { organizationId: tenant.organizationId } });
let seq = 0;
const fresh = () => `Agent ${++seq}`;
const schema = { type: "object", properties: { answer: { type: "string" } }, required: ["answer"] };
const clientTool = (name: string) => ({
  name,
  description: `Runs ${name} on our side.`,
  parameters: { type: "object", properties: { id: { type: "string" } } },
});

describe("POST /v1/agents — the object", () => {
  it("creates with the seed's defaults and answers exactly the seed's object", async () => {
    const response = await post(acme, {
      name: "Assistant support",
      instructions: "Tu réponds à partir des tickets fournis.",
      tools: ["web_search", "create_chart"],
    });
    expect(response.status).toBe(201);
    const agent = response.body.data;
    expect(Object.keys(agent).sort()).toEqual(agentKeys);
    expect(agent).toMatchObject({
      name: "Assistant support",
      instructions: "Tu réponds à partir des tickets fournis.",
      model: null,
      temperature: 0.3,
      tools: ["create_chart"],
      active: true,
      output_schema: null,
      client_tools: [],
      unavailable_tools: [],
    });
    expect(agent.id).toMatch(/^agt_[0-9a-z]{26}$/);
    expect(agent.created_at).toMatch(isoWithOffset);
    expect(agent.updated_at).toMatch(isoWithOffset);
    const stored = await (await testDb()).agent.findUniqueOrThrow({ where: { id: agent.id } });
    expect(stored).toMatchObject({
      organizationId: acme.organizationId,
      temperatureCenti: 30,
      tools: ["create_chart"],
      modelId: null,
    });
    const read = await api(`/v1/agents/${agent.id}`, { as: { key: acme.key } });
    expect(read.status).toBe(200);
    expect(read.body.data).toEqual(agent);
  });
});

// [field value sent, field value answered]
const accepted: [string, Record<string, unknown>, Record<string, unknown>][] = [
  ["name of 1 character", { name: "A" }, { name: "A" }],
  ["name of 100 characters", { name: "n".repeat(100) }, { name: "n".repeat(100) }],
  ["name trimmed", { name: "  Trimmed  " }, { name: "Trimmed" }],
  ["instructions of 20 000 characters", { instructions: "i".repeat(20_000) }, { instructions: "i".repeat(20_000) }],
  ["instructions null", { instructions: null }, { instructions: null }],
  ["instructions empty", { instructions: "" }, { instructions: "" }],
  ["model null (plan default)", { model: null }, { model: null }],
  ["a model of the plan", { model: models.small }, { model: models.small }],
  ["a pro-only model on pro", { model: models.sonnet }, { model: models.sonnet }],
  ["temperature 0", { temperature: 0 }, { temperature: 0 }],
  ["temperature 2", { temperature: 2 }, { temperature: 2 }],
  ["temperature 1.236 → 1.24", { temperature: 1.236 }, { temperature: 1.24 }],
  ["temperature 0.004 → 0", { temperature: 0.004 }, { temperature: 0 }],
  ["temperature 0.005 → 0.01", { temperature: 0.005 }, { temperature: 0.01 }],
  ["temperature 0.125 → 0.13 (half-way, decimal)", { temperature: 0.125 }, { temperature: 0.13 }],
  ["temperature 1.005 → 1.01 (binary 1.00499…)", { temperature: 1.005 }, { temperature: 1.01 }],
  ["temperature 0.285 → 0.29 (binary 0.28499…)", { temperature: 0.285 }, { temperature: 0.29 }],
  ["temperature 1.994 → 1.99", { temperature: 1.994 }, { temperature: 1.99 }],
  ["temperature 1.995 → 2", { temperature: 1.995 }, { temperature: 2 }],
  ["no tools", { tools: [] }, { tools: [] }],
  ["forced tools removed", { tools: ["web_search", "web_fetch", "calculate"] }, { tools: [] }],
  [
    "duplicates removed, order kept",
    { tools: ["query_table", "create_chart", "query_table", "calculate", "create_chart", "inspect_file"] },
    { tools: ["query_table", "create_chart", "inspect_file"] },
  ],
  ["inactive", { active: false }, { active: false }],
  [
    "an output schema with a structured-output model",
    { output_schema: schema, model: models.large },
    { output_schema: schema },
  ],
  ["an output schema with the plan default", { output_schema: schema }, { output_schema: schema }],
  ["output schema null", { output_schema: null }, { output_schema: null }],
  [
    "20 client tools",
    { client_tools: Array.from({ length: 20 }, (_, i) => clientTool(`lookup_${i}`)) },
    { client_tools: Array.from({ length: 20 }, (_, i) => clientTool(`lookup_${i}`)) },
  ],
  ["client tools null", { client_tools: null }, { client_tools: [] }],
  [
    "client tool name of 64 characters",
    { client_tools: [clientTool("a".repeat(64))] },
    { client_tools: [clientTool("a".repeat(64))] },
  ],
];

describe("POST /v1/agents — accepted values", () => {
  it.each(accepted)("%s", async (_label, sent, answered) => {
    const response = await post(acme, { name: fresh(), ...sent });
    expect(response.status).toBe(201);
    expect(response.body.data).toMatchObject(answered);
    const read = await api(`/v1/agents/${response.body.data.id}`, { as: { key: acme.key } });
    expect(read.body.data).toMatchObject(answered);
  });
});

// [label, body (name added unless present), status, code, field]
const refused: [string, Record<string, unknown>, number, string, string | null][] = [
  ["name missing", { name: undefined }, 400, "invalid_parameter", "name"],
  ["name empty", { name: "" }, 400, "invalid_parameter", "name"],
  ["name blank", { name: "   " }, 400, "invalid_parameter", "name"],
  ["name of 101 characters", { name: "n".repeat(101) }, 400, "invalid_parameter", "name"],
  ["name not a string", { name: 42 }, 400, "invalid_parameter", "name"],
  ["instructions of 20 001 characters", { instructions: "i".repeat(20_001) }, 400, "invalid_parameter", "instructions"],
  ["instructions not a string", { instructions: ["x"] }, 400, "invalid_parameter", "instructions"],
  ["an unknown model", { model: "mdl_01jz8nosuchmodel000000000" }, 422, "model_unavailable", "model"],
  ["model not a string", { model: 3 }, 400, "invalid_parameter", "model"],
  ["temperature below 0", { temperature: -0.01 }, 400, "invalid_parameter", "temperature"],
  ["temperature above 2", { temperature: 2.001 }, 400, "invalid_parameter", "temperature"],
  ["temperature as a string", { temperature: "0.5" }, 400, "invalid_parameter", "temperature"],
  ["temperature null", { temperature: null }, 400, "invalid_parameter", "temperature"],
  ["tools not a list", { tools: "create_chart" }, 400, "invalid_parameter", "tools"],
  ["a tool key that is not a string", { tools: [1] }, 400, "invalid_parameter", "tools[0]"],
  ["an unknown tool", { tools: ["create_chart", "teleport"] }, 422, "unknown_tool", "tools[1]"],
  ["active not a boolean", { active: "yes" }, 400, "invalid_parameter", "active"],
  ["output_schema not an object", { output_schema: "object" }, 400, "invalid_parameter", "output_schema"],
  ["output_schema a list", { output_schema: [schema] }, 400, "invalid_parameter", "output_schema"],
  [
    "output_schema not a valid JSON Schema",
    { output_schema: { type: "strin" } },
    400,
    "invalid_parameter",
    "output_schema",
  ],
  [
    "output_schema with an unresolvable $ref",
    { output_schema: { $ref: "#/$defs/nope" } },
    400,
    "invalid_parameter",
    "output_schema",
  ],
  [
    "output_schema with a model without structured output",
    { output_schema: schema, model: models.small },
    422,
    "output_schema_unsupported",
    "output_schema",
  ],
  [
    "21 client tools",
    { client_tools: Array.from({ length: 21 }, (_, i) => clientTool(`t${i}`)) },
    400,
    "invalid_parameter",
    "client_tools",
  ],
  [
    "a client tool name with a space",
    { client_tools: [clientTool("look up")] },
    400,
    "invalid_parameter",
    "client_tools[0].name",
  ],
  [
    "a client tool name of 65 characters",
    { client_tools: [clientTool("a".repeat(65))] },
    400,
    "invalid_parameter",
    "client_tools[0].name",
  ],
  [
    "client tool names repeated",
    { client_tools: [clientTool("lookup"), clientTool("lookup")] },
    400,
    "invalid_parameter",
    "client_tools[1].name",
  ],
  [
    "a client tool named like a catalog tool",
    { client_tools: [clientTool("create_chart")] },
    400,
    "invalid_parameter",
    "client_tools[0].name",
  ],
  [
    "a client tool without description",
    { client_tools: [{ name: "x", parameters: { type: "object" } }] },
    400,
    "invalid_parameter",
    "client_tools[0].description",
  ],
  [
    "a client tool without parameters",
    { client_tools: [{ name: "x", description: "d" }] },
    400,
    "invalid_parameter",
    "client_tools[0].parameters",
  ],
  [
    "client tool parameters not a JSON Schema",
    { client_tools: [{ ...clientTool("x"), parameters: { type: 12 } }] },
    400,
    "invalid_parameter",
    "client_tools[0].parameters",
  ],
  [
    "an unknown key in a client tool",
    { client_tools: [{ ...clientTool("x"), strict: true }] },
    400,
    "unknown_parameter",
    "client_tools[0].strict",
  ],
  ["an unknown top-level key", { colour: "blue" }, 400, "unknown_parameter", "colour"],
  ["a body that is not an object", [] as unknown as Record<string, unknown>, 400, "invalid_parameter", null],
];

describe("POST /v1/agents — refusals", () => {
  it.each(refused)("%s → %i %s", async (_label, sent, status, code, field) => {
    const before = await agentCount(acme);
    const body = Array.isArray(sent) ? sent : { name: fresh(), ...sent };
    const response = await post(acme, body);
    expect(response.status).toBe(status);
    expect(response.body.error.code).toBe(code);
    if (field) expect(response.body.error.errors.map((e: { field: string }) => e.field)).toContain(field);
    expect(await agentCount(acme)).toBe(before);
  });

  it("refuses a pro-only model on the free plan: 422 model_unavailable", async () => {
    const response = await post(globex, { name: fresh(), model: models.sonnet });
    expect(response.status).toBe(422);
    expect(response.body.error.code).toBe("model_unavailable");
    expect(await agentCount(globex)).toBe(0);
  });

  it("refuses a second agent with the same name: 409 agent_name_taken, per organization", async () => {
    await createAgent(acme, { name: "Unique name" });
    const again = await post(acme, { name: "Unique name" });
    expect(again.status).toBe(409);
    expect(again.body.error.code).toBe("agent_name_taken");
    expect(again.body.error.errors[0].field).toBe("name");
    const db = await testDb();
    expect(await db.agent.count({ where: { organizationId: acme.organizationId, name: "Unique name" } })).toBe(1);
    // Another organization may use the name.
    expect((await post(globex, { name: "Unique name" })).status).toBe(201);
  });

  it("refuses an output schema when the plan's default model has no structured output", async () => {
    const tenant = await createTenant("pro");
    await arrangePlan(tenant, {}); // default: Mistral Small
    const response = await post(tenant, { name: "Structured", output_schema: schema });
    expect(response.status).toBe(422);
    expect(response.body.error.code).toBe("output_schema_unsupported");
    expect(await agentCount(tenant)).toBe(0);
  });

  it("counts agents against the plan: 422 quota_exceeded past maxAgents", async () => {
    const tenant = await createTenant("pro");
    await arrangePlan(tenant, { maxAgents: 2 });
    await createAgent(tenant);
    await createAgent(tenant);
    const third = await post(tenant, { name: "Third" });
    expect(third.status).toBe(422);
    expect(third.body.error.code).toBe("quota_exceeded");
    expect(await agentCount(tenant)).toBe(2);
  });

  it("creates one agent for one Idempotency-Key", async () => {
    const body = { name: "Idempotent agent" };
    const first = await api("/v1/agents", {
      json: body,
      headers: { "idempotency-key": "agt-1" },
      as: { key: acme.key },
    });
    const second = await api("/v1/agents", {
      json: body,
      headers: { "idempotency-key": "agt-1" },
      as: { key: acme.key },
    });
    expect(first.status).toBe(201);
    expect(second.body).toEqual(first.body);
    expect(
      await (await testDb()).agent.count({ where: { organizationId: acme.organizationId, name: "Idempotent agent" } }),
    ).toBe(1);
  });
});

describe("PATCH /v1/agents/{agent}", () => {
  it("changes only the fields sent and moves updated_at", async () => {
    const agent = await createAgent(acme, { instructions: "Keep me", temperature: 0.7, tools: ["create_chart"] });
    const response = await patch(acme, agent.id, { temperature: 1.005, active: false });
    expect(response.status).toBe(200);
    expect(response.body.data).toMatchObject({
      instructions: "Keep me",
      temperature: 1.01,
      active: false,
      tools: ["create_chart"],
      created_at: agent.created_at,
    });
    expect(Date.parse(response.body.data.updated_at)).toBeGreaterThanOrEqual(Date.parse(agent.updated_at));
    expect((await (await testDb()).agent.findUniqueOrThrow({ where: { id: agent.id } })).temperatureCenti).toBe(101);
  });

  it("answers an empty PATCH with the agent unchanged", async () => {
    const agent = await createAgent(acme);
    const response = await patch(acme, agent.id, {});
    expect(response.status).toBe(200);
    expect(response.body.data).toEqual(agent);
  });

  it("removes output_schema with null, empties client_tools with null or [], clears instructions and the model", async () => {
    const agent = await createAgent(acme, {
      instructions: "x",
      model: models.sonnet,
      output_schema: schema,
      client_tools: [clientTool("a")],
    });
    const cleared = await patch(acme, agent.id, {
      output_schema: null,
      client_tools: null,
      instructions: null,
      model: null,
    });
    expect(cleared.status).toBe(200);
    expect(cleared.body.data).toMatchObject({ output_schema: null, client_tools: [], instructions: null, model: null });
    const stored = await (await testDb()).agent.findUniqueOrThrow({ where: { id: agent.id } });
    expect(stored.outputSchema).toBeNull();
    expect(stored.clientTools).toEqual([]);
    await patch(acme, agent.id, { client_tools: [clientTool("b")] });
    expect((await patch(acme, agent.id, { client_tools: [] })).body.data.client_tools).toEqual([]);
  });

  it("refuses a model change under an existing output schema, and keeps the agent as it was", async () => {
    const agent = await createAgent(acme, { output_schema: schema });
    const response = await patch(acme, agent.id, { model: models.small });
    expect(response.status).toBe(422);
    expect(response.body.error.code).toBe("output_schema_unsupported");
    expect(response.body.error.errors[0].field).toBe("model");
    const stored = await (await testDb()).agent.findUniqueOrThrow({ where: { id: agent.id } });
    expect(stored.modelId).toBeNull();
    // Removing the schema in the same request makes the change valid.
    expect((await patch(acme, agent.id, { model: models.small, output_schema: null })).status).toBe(200);
    expect((await patch(acme, agent.id, { output_schema: schema })).body.error.code).toBe("output_schema_unsupported");
  });

  it("keeps a saved model the plan no longer includes until the model is changed", async () => {
    const tenant = await createTenant("pro");
    const agent = await createAgent(tenant, { model: models.sonnet });
    await setPlan(tenant, "free");
    expect((await patch(tenant, agent.id, { name: "Renamed" })).status).toBe(200);
    expect((await patch(tenant, agent.id, { model: models.sonnet })).status).toBe(200);
    expect((await patch(tenant, agent.id, { model: models.small })).status).toBe(200);
    const back = await patch(tenant, agent.id, { model: models.sonnet });
    expect(back.status).toBe(422);
    expect(back.body.error.code).toBe("model_unavailable");
    expect((await (await testDb()).agent.findUniqueOrThrow({ where: { id: agent.id } })).modelId).toBe(models.small);
  });

  it("refuses a name taken by another agent, accepts the agent's own name", async () => {
    const first = await createAgent(acme);
    const second = await createAgent(acme);
    const clash = await patch(acme, second.id, { name: first.name });
    expect(clash.status).toBe(409);
    expect(clash.body.error.code).toBe("agent_name_taken");
    expect((await (await testDb()).agent.findUniqueOrThrow({ where: { id: second.id } })).name).toBe(second.name);
    expect((await patch(acme, second.id, { name: second.name })).status).toBe(200);
  });

  it.each([
    ["name null", { name: null }, "invalid_parameter", "name"],
    ["temperature 2.5", { temperature: 2.5 }, "invalid_parameter", "temperature"],
    ["tools null", { tools: null }, "invalid_parameter", "tools"],
    ["an unknown key", { id: "agt_x" }, "unknown_parameter", "id"],
  ])("refuses %s", async (_label, body, code, field) => {
    const agent = await createAgent(acme);
    const response = await patch(acme, agent.id, body);
    expect(response.status).toBe(400);
    expect(response.body.error.code).toBe(code);
    expect(response.body.error.errors[0].field).toBe(field);
    expect((await api(`/v1/agents/${agent.id}`, { as: { key: acme.key } })).body.data).toEqual(agent);
  });
});

describe("GET /v1/agents", () => {
  it("pages newest first with next_cursor, and validates limit", async () => {
    const tenant = await createTenant("pro");
    const made = [];
    for (let i = 0; i < 5; i++) made.push(await createAgent(tenant, { name: `Paged ${i}` }));
    const seen: string[] = [];
    let cursor: string | null = null;
    do {
      const response: { status: number; body: any } = await api(
        `/v1/agents?limit=2${cursor ? `&cursor=${cursor}` : ""}`,
        { as: { key: tenant.key } },
      );
      expect(response.status).toBe(200);
      expect(response.body.data.length).toBeLessThanOrEqual(2);
      seen.push(...response.body.data.map((a: { id: string }) => a.id));
      cursor = response.body.next_cursor;
    } while (cursor);
    expect(seen).toEqual(made.map((a) => a.id).reverse());
    for (const limit of ["0", "101", "x"]) {
      const response = await api(`/v1/agents?limit=${limit}`, { as: { key: tenant.key } });
      expect(response.status).toBe(400);
      expect(response.body.error.errors[0].field).toBe("limit");
    }
    expect((await api("/v1/agents?cursor=nope", { as: { key: tenant.key } })).status).toBe(400);
  });
});

describe("DELETE /v1/agents/{agent}", () => {
  it("deletes the agent, then answers 404", async () => {
    const agent = await createAgent(acme);
    const response = await api(`/v1/agents/${agent.id}`, { method: "DELETE", as: { key: acme.key } });
    expect(response.status).toBe(200);
    expect(response.body.data).toEqual({ id: agent.id, deleted: true });
    expect(await (await testDb()).agent.findUnique({ where: { id: agent.id } })).toBeNull();
    expect((await api(`/v1/agents/${agent.id}`, { as: { key: acme.key } })).status).toBe(404);
    expect((await api(`/v1/agents/${agent.id}`, { method: "DELETE", as: { key: acme.key } })).status).toBe(404);
  });
});
