import { beforeAll, describe, expect, it } from "vitest";
import { createScript, scriptRecord, type ScriptRecord } from "@/connectors/model-sim/control";
import type { ScriptBody } from "@/connectors/model-sim/script";
import { connectCrm, createAgent, storedSteps, upload, type ConnectedCrm } from "./dispatch-fixtures";
import { api, createTenant, simBaseUrl, testDb, until, type Tenant } from "./helpers";
import { models } from "./agents-helpers";

// Managed runs: Guichet runs the agent's model (model-sim, through the real
// provider client) and every tool call the model makes goes through the
// dispatcher. Each test scripts the model and asserts what it was sent.

let acme: Tenant;
let crm: ConnectedCrm;

beforeAll(async () => {
  acme = await createTenant("pro");
  crm = await connectCrm(acme);
});

async function script(turns: ScriptBody["turns"]) {
  return createScript(simBaseUrl, { turns });
}

/** POST /v1/runs with input; the script is selected by its marker in the call's instructions. */
async function managedRun(agentId: string, marker: string, body: Record<string, unknown> = {}, tenant = acme) {
  return api("/v1/runs", {
    json: {
      agent: agentId,
      input: "Bonjour",
      instructions: `Réponds en français. ${marker}`,
      ...(body.stream ? {} : { wait: 60 }),
      ...body,
    },
    as: { key: tenant.key },
  });
}

/** The tool messages the model received in a request, parsed. */
function toolResults(request: ScriptRecord["requests"][number]): any[] {
  return request.messages.filter((m) => m.role === "tool").map((m) => JSON.parse(String(m.content)));
}

describe("POST /v1/runs with input", () => {
  it("sends the agent's instructions then the call's, the input and the run's tools; answers the completed run with its usage", async () => {
    const agent = await createAgent(acme, {
      instructions: "Tu es l'assistant du service client.",
      tools: [crm.key("get_customer")],
    });
    const s = await script([
      { text: "Bonjour, que puis-je faire ?", usage: { prompt_tokens: 120, completion_tokens: 8 } },
    ]);
    const response = await managedRun(agent.id, s.marker, { metadata: { ticket: "T-42" } });
    expect(response.status).toBe(201);
    const run = response.body.data;
    expect(run).toMatchObject({
      status: "completed",
      managed: true,
      model: models.large,
      metadata: { ticket: "T-42" },
      error: null,
      output: { text: "Bonjour, que puis-je faire ?" },
      usage: {
        input_tokens: 120,
        output_tokens: 8,
        model_calls: [{ input_tokens: 120, output_tokens: 8, duration_ms: expect.any(Number) }],
      },
    });
    const [request] = (await scriptRecord(simBaseUrl, s.id)).requests;
    expect(request.model).toBe("mistral-large-latest");
    const system = String(request.messages[0].content);
    expect(request.messages[0].role).toBe("system");
    expect(system.indexOf("Tu es l'assistant du service client.")).toBe(0);
    expect(system.indexOf(`Réponds en français. ${s.marker}`)).toBeGreaterThan(system.indexOf("Tu es l'assistant"));
    expect(system).toContain("untrusted_content");
    expect(request.messages.slice(1)).toEqual([{ role: "user", content: "Bonjour" }]);
    expect(request.tools?.map((t) => t.function.name).sort()).toEqual(
      ["calculate", crm.key("get_customer"), "web_fetch", "web_search"].sort(),
    );
    const described = request.tools?.find((t) => t.function.name === crm.key("get_customer"));
    expect(described?.function.parameters).toMatchObject({
      type: "object",
      properties: { customer_id: expect.any(Object) },
    });
    // GET answers the same stored run; the conversation is readable back.
    const read = await api(`/v1/runs/${run.id}`, { as: { key: acme.key } });
    expect(read.body.data).toEqual(run);
    const messages = await api(`/v1/runs/${run.id}/messages`, { as: { key: acme.key } });
    expect(messages.body.data.map((m: { role: string }) => m.role)).toEqual(["system", "user", "assistant"]);
    expect(messages.body.data[2]).toEqual({ role: "assistant", content: "Bonjour, que puis-je faire ?" });
  });

  it("takes a conversation as input, in order", async () => {
    const agent = await createAgent(acme);
    const s = await script([{ text: "C'est noté." }]);
    const input = [
      { role: "user", content: "Je m'appelle Ana." },
      { role: "assistant", content: "Enchanté." },
      { role: "user", content: "Retiens-le." },
    ];
    const response = await managedRun(agent.id, s.marker, { input });
    expect(response.body.data.status).toBe("completed");
    expect((await scriptRecord(simBaseUrl, s.id)).requests[0].messages.slice(1)).toEqual(input);
  });

  it("runs a read tool call through the dispatcher and hands the envelope back as untrusted content", async () => {
    const agent = await createAgent(acme, { tools: [crm.key("get_customer")] });
    const s = await script([
      { tool_calls: [{ name: crm.key("get_customer"), arguments: { customer_id: "C-1842" } }] },
      { text: "Le client est à Lyon." },
    ]);
    const response = await managedRun(agent.id, s.marker);
    const run = response.body.data;
    expect(run.status).toBe("completed");
    const record = await scriptRecord(simBaseUrl, s.id);
    expect(record.served).toBe(2);
    const [result] = toolResults(record.requests[1]);
    expect(result.untrusted_content.ok).toBe(true);
    expect(result.untrusted_content.result).toMatchObject({ customer_id: "C-1842" });
    expect(result.evidence.tool).toBe(`${crm.key("get_customer")}@1`);
    const steps = await storedSteps(run.id);
    expect(steps.map((step) => [step.tool, step.status])).toEqual([[crm.key("get_customer"), "ok"]]);
    expect(run.usage.model_calls).toHaveLength(2);
  });

  it("returns refused calls to the model as typed errors, each recorded as a step", async () => {
    const agent = await createAgent(acme, { tools: [crm.key("get_customer")] });
    const s = await script([
      {
        tool_calls: [
          { name: "delete_everything", arguments: {} },
          { name: crm.key("get_customer"), arguments: { customer_id: "C-1842", admin: true } },
        ],
      },
      { text: "Je ne peux pas." },
    ]);
    const run = (await managedRun(agent.id, s.marker)).body.data;
    expect(run.status).toBe("completed");
    const results = toolResults((await scriptRecord(simBaseUrl, s.id)).requests[1]);
    expect(results.map((r) => r.error.code)).toEqual(["UNKNOWN_TOOL", "INVALID_ARGUMENTS"]);
    expect(results[1].untrusted_content).toBeNull();
    const steps = await storedSteps(run.id);
    expect(steps.map((step) => [step.tool, step.status, step.errorCode]).sort()).toEqual(
      [
        ["delete_everything", "error", "UNKNOWN_TOOL"],
        [crm.key("get_customer"), "error", "INVALID_ARGUMENTS"],
      ].sort(),
    );
  });

  it("lists the agent's documents and the run's files, readable with the file tools", async () => {
    const agent = await createAgent(acme);
    const doc = await upload(
      acme,
      `/v1/agents/${agent.id}/documents`,
      "Horaires : 9h-18h du lundi au vendredi.",
      "horaires.txt",
    );
    const file = await upload(acme, "/v1/files", "Commande 7781 : livrée le 3 mars.", "commande.txt");
    const s = await script([
      {
        tool_calls: [
          { name: "read_uploaded_file", arguments: { file_id: doc.id } },
          { name: "read_uploaded_file", arguments: { file_id: file.id } },
        ],
      },
      { text: "Ouvert de 9h à 18h ; commande livrée le 3 mars." },
    ]);
    const run = (await managedRun(agent.id, s.marker, { files: [file.id] })).body.data;
    expect(run.status).toBe("completed");
    const record = await scriptRecord(simBaseUrl, s.id);
    const system = String(record.requests[0].messages[0].content);
    expect(system).toMatch(new RegExp(`Knowledge documents[^]*${doc.id}: horaires\\.txt`));
    expect(system).toMatch(new RegExp(`Files given with this request[^]*${file.id}: commande\\.txt`));
    const texts = toolResults(record.requests[1]).map((r) => JSON.stringify(r.untrusted_content.result));
    expect(texts[0]).toContain("9h-18h");
    expect(texts[1]).toContain("livrée le 3 mars");
  });
});

describe("structured output", () => {
  const schema = {
    type: "object",
    properties: { city: { type: "string" }, zip: { type: "string", pattern: "^[0-9]{5}$" } },
    required: ["city", "zip"],
    additionalProperties: false,
  };

  it("requests the agent's output_schema and stores output.json", async () => {
    const agent = await createAgent(acme, { output_schema: schema });
    const s = await script([{ json: { city: "Lyon", zip: "69003" } }]);
    const run = (await managedRun(agent.id, s.marker)).body.data;
    expect(run).toMatchObject({
      status: "completed",
      output: { json: { city: "Lyon", zip: "69003" }, text: '{"city":"Lyon","zip":"69003"}' },
    });
    const [request] = (await scriptRecord(simBaseUrl, s.id)).requests;
    expect(request.response_format).toEqual({ type: "json_schema", json_schema: { name: "output", schema } });
  });

  it("asks again once after an invalid answer, and keeps the valid one", async () => {
    const agent = await createAgent(acme, { output_schema: schema });
    const s = await script([{ json: { city: "Lyon", zip: "693" } }, { json: { city: "Lyon", zip: "69003" } }]);
    const run = (await managedRun(agent.id, s.marker)).body.data;
    expect(run).toMatchObject({ status: "completed", output: { json: { city: "Lyon", zip: "69003" } } });
    const second = (await scriptRecord(simBaseUrl, s.id)).requests[1];
    expect(String(second.messages.at(-1)?.content)).toContain("/zip");
  });

  it("fails with output_invalid, naming the field, after two invalid answers", async () => {
    const agent = await createAgent(acme, { output_schema: schema });
    const s = await script([{ text: "Lyon, 69003" }, { json: { city: "Lyon" } }]);
    const run = (await managedRun(agent.id, s.marker)).body.data;
    expect(run).toMatchObject({ status: "failed", output: null, error: { code: "output_invalid", field: "/zip" } });
    expect(run.error.message).toContain("zip");
    expect((await scriptRecord(simBaseUrl, s.id)).served).toBe(2);
  });
});

describe("bounds and failures", () => {
  it("fails with max_steps_exceeded after 20 model calls", async () => {
    const agent = await createAgent(acme);
    const s = await script(
      Array.from({ length: 21 }, () => ({ tool_calls: [{ name: "calculate", arguments: { expression: "1+1" } }] })),
    );
    const run = (await managedRun(agent.id, s.marker)).body.data;
    expect(run).toMatchObject({ status: "failed", error: { code: "max_steps_exceeded" } });
    expect((await scriptRecord(simBaseUrl, s.id)).served).toBe(20);
    expect(await storedSteps(run.id)).toHaveLength(20);
    expect(run.usage.model_calls).toHaveLength(20);
  });

  it("turns a provider that stays down into model_error after one retry, with nothing executed", async () => {
    const agent = await createAgent(acme, { tools: [crm.key("get_customer")] });
    const s = await script([
      { error: { status: 503, message: "overloaded" } },
      { error: { status: 503, message: "overloaded" } },
    ]);
    const run = (await managedRun(agent.id, s.marker)).body.data;
    expect(run).toMatchObject({ status: "failed", output: null, error: { code: "model_error" } });
    expect(run.error.message).toContain("HTTP 503");
    expect((await scriptRecord(simBaseUrl, s.id)).served).toBe(2);
    expect(await storedSteps(run.id)).toEqual([]);
  });

  it("asks again once after malformed tool-call arguments, then fails with model_error naming them", async () => {
    const agent = await createAgent(acme);
    const s = await script([
      { tool_calls: [{ name: "calculate", raw_arguments: '{"expression": "1+' }] },
      { tool_calls: [{ name: "calculate", raw_arguments: "{oops" }] },
    ]);
    const run = (await managedRun(agent.id, s.marker)).body.data;
    expect(run).toMatchObject({ status: "failed", error: { code: "model_error", field: "tool_calls[0].arguments" } });
    expect(await storedSteps(run.id)).toEqual([]);
  });

  it("fails with model_timeout when the model does not answer in time", async () => {
    const agent = await createAgent(acme);
    const s = await script([
      { text: "trop tard", delay_ms: 10_000 },
      { text: "trop tard", delay_ms: 10_000 },
    ]);
    const run = (await managedRun(agent.id, s.marker)).body.data;
    expect(run).toMatchObject({ status: "failed", error: { code: "model_timeout" } });
  });

  // The loop's last resort: an error of Guichet's own ends the run `internal_error`, never leaves it active behind
  // a 500. The one real path found to it is the database refusing what the model said: PostgreSQL stores no NUL
  // character in JSON. SQLite stores any text, so there the same answer completes, kept to the character.
  it("ends the run with internal_error when the database refuses the model's answer, never leaving it active", async () => {
    const agent = await createAgent(acme);
    const text = "Réponse\u0000coupée";
    for (const stream of [false, true]) {
      const s = await script([{ text }]);
      const response = await managedRun(agent.id, s.marker, stream ? { stream: true } : {});
      expect(response.status).toBe(201);
      const runId = stream ? /"run":"(run_[^"]+)"/.exec(String(response.body))![1] : response.body.data.id;
      const run = (await api(`/v1/runs/${runId}`, { as: { key: acme.key } })).body.data;
      const db = await testDb();
      const events = await db.runEvent.findMany({ where: { runId }, orderBy: { seq: "asc" }, select: { type: true } });
      if ((process.env.DATABASE_URL ?? "").startsWith("file:")) {
        expect(run).toMatchObject({ status: "completed", output: { text } });
        continue;
      }
      expect(run, `stream: ${stream}`).toMatchObject({
        status: "failed",
        output: null,
        error: { code: "internal_error", field: null },
      });
      expect(events.map((e) => e.type).at(-1)).toBe("run.failed");
      expect(await db.run.findUniqueOrThrow({ where: { id: runId }, select: { status: true } })).toEqual({
        status: "failed",
      });
    }
  });

  it("stops between steps when the run is cancelled", async () => {
    const agent = await createAgent(acme);
    const s = await script([
      // Held far longer than the test takes: the cancel aborts the model call in flight, however loaded the machine.
      { tool_calls: [{ name: "calculate", arguments: { expression: "2*3" } }], delay_ms: 30_000 },
      { text: "jamais envoyé" },
    ]);
    const started = managedRun(agent.id, s.marker);
    // Cancel while the model is answering its first turn.
    await until(async () => (await scriptRecord(simBaseUrl, s.id)).served === 1, "the first model call");
    const runId: string = (await api(`/v1/runs?agent=${agent.id}`, { as: { key: acme.key } })).body.data[0].id;
    const cancelled = await api(`/v1/runs/${runId}/cancel`, { method: "POST", as: { key: acme.key } });
    expect(cancelled.status).toBe(200);
    const run = (await started).body.data;
    expect(run.status).toBe("cancelled");
    expect((await scriptRecord(simBaseUrl, s.id)).served).toBe(1);
    expect(await storedSteps(runId)).toEqual([]);
  });
});

describe("refusals", () => {
  it("refuses a model whose provider is not configured with 503 model_provider_unavailable, storing nothing", async () => {
    const agent = await createAgent(acme, { model: models.sonnet });
    const before = await (await testDb()).run.count({ where: { organizationId: acme.organizationId } });
    const response = await managedRun(agent.id, "");
    expect(response.status).toBe(503);
    expect(response.body.error.code).toBe("model_provider_unavailable");
    expect(response.body.error.message).toContain("GUICHET_MODEL_ANTHROPIC_API_KEY");
    expect(await (await testDb()).run.count({ where: { organizationId: acme.organizationId } })).toBe(before);
  });

  it("keeps the /v1 rules for bad inputs and an inactive agent", async () => {
    const agent = await createAgent(acme);
    const cases: Array<[Record<string, unknown>, string, string]> = [
      [{ input: "" }, "invalid_parameter", "input"],
      [{ input: [{ role: "system", content: "x" }] }, "invalid_parameter", "input"],
      [{ input: 42 }, "invalid_parameter", "input"],
      [
        { metadata: Object.fromEntries(Array.from({ length: 17 }, (_, i) => [`k${i}`, "v"])) },
        "invalid_parameter",
        "metadata",
      ],
      [{ metadata: { k: 1 } }, "invalid_parameter", "metadata.k"],
      [{ temperature: 1 }, "unknown_parameter", "temperature"],
    ];
    for (const [body, code, field] of cases) {
      const response = await managedRun(agent.id, "", body);
      expect(response.status, JSON.stringify(body)).toBe(400);
      expect(response.body.error.code, JSON.stringify(body)).toBe(code);
      expect(response.body.error.errors?.[0]?.field ?? field, JSON.stringify(body)).toBe(field);
    }
    await api(`/v1/agents/${agent.id}`, { method: "PATCH", json: { active: false }, as: { key: acme.key } });
    const inactive = await managedRun(agent.id, "");
    expect(inactive.status).toBe(400);
    expect(inactive.body.error.code).toBe("agent_inactive");
    expect(await (await testDb()).run.count({ where: { agentId: agent.id } })).toBe(0);
  });

  it("answers another organization's run messages with 404, and a client-driven run's with none", async () => {
    const other = await createTenant("pro");
    const agent = await createAgent(acme);
    const s = await script([{ text: "ok" }]);
    const run = (await managedRun(agent.id, s.marker)).body.data;
    expect((await api(`/v1/runs/${run.id}/messages`, { as: { key: other.key } })).status).toBe(404);
    const driven = await api("/v1/runs", { json: { agent: agent.id }, as: { key: acme.key } });
    expect(driven.body.data).toMatchObject({
      managed: false,
      model: null,
      output: null,
      usage: null,
      error: null,
      metadata: {},
    });
    expect((await api(`/v1/runs/${driven.body.data.id}/messages`, { as: { key: acme.key } })).body).toEqual({
      data: [],
      purged_at: null,
    });
  });
});

describe("client tools: requires_action and tool_outputs", () => {
  const lookupOrder = {
    name: "lookup_order",
    description: "Looks an order up in our shop.",
    parameters: {
      type: "object",
      properties: { order_id: { type: "string", pattern: "^O-[0-9]+$" } },
      required: ["order_id"],
      additionalProperties: false,
    },
  };

  async function pausedRun() {
    const agent = await createAgent(acme, { client_tools: [lookupOrder] });
    const s = await script([
      {
        tool_calls: [
          { name: "lookup_order", arguments: { order_id: "O-7781" } },
          { name: "calculate", arguments: { expression: "2+2" } },
        ],
      },
      { text: "Votre commande O-7781 est expédiée." },
    ]);
    const run = (await managedRun(agent.id, s.marker)).body.data;
    return { agent, s, run };
  }

  const submit = (runId: string, body: unknown, tenant = acme) =>
    api(`/v1/runs/${runId}/tool_outputs`, { json: body, as: { key: tenant.key } });

  it("pauses on a client tool call with required_action, then resumes with its output to completion", async () => {
    const { s, run } = await pausedRun();
    expect(run).toMatchObject({
      status: "requires_action",
      output: null,
      required_action: {
        tool_calls: [{ id: expect.any(String), name: "lookup_order", arguments: { order_id: "O-7781" } }],
      },
    });
    expect((await scriptRecord(simBaseUrl, s.id)).requests[0].tools?.map((t) => t.function.name)).toContain(
      "lookup_order",
    );
    // The server tool of the same turn already ran through the dispatcher; the client tool never does.
    expect((await storedSteps(run.id)).map((step) => step.tool)).toEqual(["calculate"]);
    const callId = run.required_action.tool_calls[0].id;
    const resumed = await submit(run.id, { tool_outputs: [{ tool_call_id: callId, output: '{"status":"shipped"}' }] });
    expect(resumed.status).toBe(200);
    expect(resumed.body.data).toMatchObject({
      status: "completed",
      required_action: null,
      output: { text: "Votre commande O-7781 est expédiée." },
    });
    // Usage counts the model call made before the pause as well as the one after it.
    expect(resumed.body.data.usage.model_calls).toHaveLength(2);
    const second = (await scriptRecord(simBaseUrl, s.id)).requests[1];
    const answered = second.messages.find((m) => m.role === "tool" && m.tool_call_id === callId);
    expect(JSON.parse(String(answered?.content))).toEqual({
      untrusted_content: { ok: true, result: '{"status":"shipped"}' },
    });
    // Late: the run waits for nothing any more.
    const late = await submit(run.id, { tool_outputs: [{ tool_call_id: callId, output: "encore" }] });
    expect(late.status).toBe(409);
    expect(late.body.error.code).toBe("run_not_waiting");
  });

  it("refuses unknown, duplicate and missing outputs with typed errors, leaving the run waiting", async () => {
    const { run } = await pausedRun();
    const callId = run.required_action.tool_calls[0].id;
    const cases: Array<[unknown, number, string, string | undefined]> = [
      [{ tool_outputs: [{ tool_call_id: "call_nope", output: "x" }] }, 400, "invalid_parameter", "unknown_tool_call"],
      [
        {
          tool_outputs: [
            { tool_call_id: callId, output: "x" },
            { tool_call_id: callId, output: "y" },
          ],
        },
        400,
        "invalid_parameter",
        "duplicate_tool_call",
      ],
      [{ tool_outputs: [] }, 400, "invalid_parameter", undefined],
      [{ tool_outputs: [{ tool_call_id: callId, output: 42 }] }, 400, "invalid_parameter", undefined],
      [{ tool_outputs: [{ tool_call_id: callId, output: "x", extra: 1 }] }, 400, "unknown_parameter", undefined],
    ];
    for (const [body, status, code, fieldCode] of cases) {
      const response = await submit(run.id, body);
      expect(response.status, JSON.stringify(body)).toBe(status);
      expect(response.body.error.code, JSON.stringify(body)).toBe(code);
      if (fieldCode) expect(response.body.error.errors[0].code).toBe(fieldCode);
    }
    const other = await createTenant("pro");
    expect((await submit(run.id, { tool_outputs: [{ tool_call_id: callId, output: "x" }] }, other)).status).toBe(404);
    const stored = await (await testDb()).run.findUniqueOrThrow({ where: { id: run.id } });
    expect(stored.status).toBe("requires_action");
  });

  it("resumes a run once when two requests race: one completes it, the other is refused", async () => {
    const { s, run } = await pausedRun();
    const body = { tool_outputs: [{ tool_call_id: run.required_action.tool_calls[0].id, output: "ok" }] };
    const answers = await Promise.all([submit(run.id, body), submit(run.id, body)]);
    expect(answers.map((a) => a.status).sort()).toEqual([200, 409]);
    expect(answers.find((a) => a.status === 409)?.body.error.code).toBe("run_not_waiting");
    expect((await scriptRecord(simBaseUrl, s.id)).served).toBe(2);
  });

  it("hands invalid client-tool arguments back to the model without pausing", async () => {
    const agent = await createAgent(acme, { client_tools: [lookupOrder] });
    const s = await script([
      { tool_calls: [{ name: "lookup_order", arguments: { order_id: "7781" } }] },
      { text: "Quel est le numéro exact ?" },
    ]);
    const run = (await managedRun(agent.id, s.marker)).body.data;
    expect(run).toMatchObject({ status: "completed", required_action: null });
    const [result] = toolResults((await scriptRecord(simBaseUrl, s.id)).requests[1]);
    expect(result.error).toMatchObject({ code: "INVALID_ARGUMENTS", field: "/order_id" });
  });

  it("cancels a waiting run; its outputs are then refused", async () => {
    const { run } = await pausedRun();
    expect((await api(`/v1/runs/${run.id}/cancel`, { method: "POST", as: { key: acme.key } })).body.data).toMatchObject(
      { status: "cancelled", required_action: null },
    );
    const late = await submit(run.id, {
      tool_outputs: [{ tool_call_id: run.required_action.tool_calls[0].id, output: "x" }],
    });
    expect(late.status).toBe(409);
    expect(late.body.error.code).toBe("run_not_waiting");
  });
});
