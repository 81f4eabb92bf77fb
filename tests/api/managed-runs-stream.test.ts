import { EventSourceParserStream } from "eventsource-parser/stream";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createScript, scriptRecord } from "@/connectors/model-sim/control";
import type { ScriptBody } from "@/connectors/model-sim/script";
import { connectCrm, createAgent, storedSteps, type ConnectedCrm } from "./dispatch-fixtures";
import { api, baseUrl, createTenant, simBaseUrl, startSuiteInstance, testDb, type Tenant } from "./helpers";
import { startApp } from "./server";

// Streamed managed runs: POST /v1/runs with `stream: true` answers Server-Sent
// Events read here with a standard SSE parser, the model's text streamed by
// model-sim through the provider client; GET /v1/runs/{run}/events re-attaches
// from the stored events, after Last-Event-ID.

let acme: Tenant;
let crm: ConnectedCrm;

beforeAll(async () => {
  acme = await createTenant("pro");
  crm = await connectCrm(acme);
});

interface Sse {
  id: number;
  event: string;
  data: any;
}

/** Opens an SSE answer; `read(stopAfter)` collects events until the server ends the stream (or `stopAfter` of them, then hangs up). */
async function openStream(
  path: string,
  init: { method?: string; json?: unknown; lastEventId?: string; key?: string; base?: string },
) {
  const controller = new AbortController();
  const response = await fetch(`${init.base ?? baseUrl}${path}`, {
    method: init.method ?? (init.json ? "POST" : "GET"),
    headers: {
      authorization: `Bearer ${init.key ?? acme.key}`,
      accept: "text/event-stream",
      ...(init.json ? { "content-type": "application/json" } : {}),
      ...(init.lastEventId !== undefined ? { "last-event-id": init.lastEventId } : {}),
    },
    body: init.json ? JSON.stringify(init.json) : undefined,
    signal: controller.signal,
  });
  const read = async (stopAfter = Infinity): Promise<Sse[]> => {
    const reader = response
      .body!.pipeThrough(new TextDecoderStream())
      .pipeThrough(new EventSourceParserStream())
      .getReader();
    const events: Sse[] = [];
    while (events.length < stopAfter) {
      const { done, value } = await reader.read();
      if (done) return events;
      events.push({ id: Number(value.id), event: value.event ?? "message", data: JSON.parse(value.data) });
    }
    controller.abort();
    return events;
  };
  return { response, read };
}

async function script(turns: ScriptBody["turns"]) {
  return createScript(simBaseUrl, { turns });
}

function streamedRun(agentId: string, marker: string, body: Record<string, unknown> = {}) {
  return openStream("/v1/runs", {
    json: { agent: agentId, input: "Bonjour", instructions: `Réponds en français. ${marker}`, stream: true, ...body },
  });
}

const names = (events: Sse[]) => events.map((e) => e.event);
const collapse = (list: string[]) => list.filter((name, i) => name !== "message.delta" || list[i - 1] !== name);

describe("POST /v1/runs with stream: true", () => {
  it("streams a read round-trip in order: created, the tool call without its arguments, the model's deltas, completed", async () => {
    const agent = await createAgent(acme, { tools: [crm.key("get_customer")] });
    const answer = "Le client C-1842 habite toujours à Lyon, rien à changer.";
    const s = await script([
      { tool_calls: [{ name: crm.key("get_customer"), arguments: { customer_id: "C-1842" } }] },
      { text: answer, usage: { prompt_tokens: 50, completion_tokens: 12 } },
    ]);
    const { response, read } = await streamedRun(agent.id, s.marker);
    expect(response.status).toBe(201);
    expect(response.headers.get("content-type")).toMatch(/^text\/event-stream/);
    const events = await read();
    expect(collapse(names(events))).toEqual([
      "run.created",
      "tool_call.started",
      "tool_call.completed",
      "message.delta",
      "run.completed",
    ]);
    expect(events.map((e) => e.id)).toEqual(events.map((_, i) => i + 1));
    const runId = events[0].data.run;
    expect(events[0].data).toMatchObject({ agent: agent.id, model: expect.any(String), warnings: [] });
    const [started, completed] = events.slice(1, 3);
    expect(started.data).toEqual({ tool_call_id: expect.any(String), tool: crm.key("get_customer"), client: false });
    expect(completed.data).toMatchObject({
      tool_call_id: started.data.tool_call_id,
      tool: crm.key("get_customer"),
      status: "ok",
      error_code: null,
      duration_ms: expect.any(Number),
      step: expect.stringMatching(/^step_/),
    });
    // Outcome and timing only: neither the arguments nor the customer's record travel in the events.
    const toolEvents = JSON.stringify(events.filter((e) => e.event.startsWith("tool_call.")));
    expect(toolEvents).not.toContain("C-1842");
    expect(toolEvents).not.toContain("customer_id");
    // The model's own deltas, several of them, that make the answer.
    const deltas = events.filter((e) => e.event === "message.delta").map((e) => e.data.content);
    expect(deltas.length).toBeGreaterThan(1);
    expect(deltas.join("")).toBe(answer);
    expect(events.at(-1)!.data).toMatchObject({
      output: { text: answer },
      usage: { output_tokens: expect.any(Number) },
    });
    const record = await scriptRecord(simBaseUrl, s.id);
    expect(record.requests.map((r) => r.stream)).toEqual([true, true]);
    const run = (await api(`/v1/runs/${runId}`, { as: { key: acme.key } })).body.data;
    expect(run).toMatchObject({ status: "completed", output: { text: answer } });
    expect(run.usage.model_calls[1]).toMatchObject({ input_tokens: 50, output_tokens: 12 });
    expect((await storedSteps(runId)).map((step) => step.id)).toEqual([completed.data.step]);
  });

  it("ends the stream at a client tool pause, and GET /events after Last-Event-ID follows the resumed run", async () => {
    const lookupOrder = {
      name: "lookup_order",
      description: "Looks an order up in our shop.",
      parameters: { type: "object", properties: { order_id: { type: "string" } }, required: ["order_id"] },
    };
    const agent = await createAgent(acme, { client_tools: [lookupOrder] });
    const s = await script([
      { tool_calls: [{ name: "lookup_order", arguments: { order_id: "O-7781" } }] },
      { text: "Votre commande est expédiée." },
    ]);
    const first = await (await streamedRun(agent.id, s.marker)).read();
    expect(names(first)).toEqual(["run.created", "tool_call.started", "run.requires_action"]);
    expect(first[1].data).toMatchObject({ tool: "lookup_order", client: true });
    const pause = first[2].data.required_action.tool_calls[0];
    // The API client is handed the arguments it must act on, in the pause itself.
    expect(pause).toEqual({ id: first[1].data.tool_call_id, name: "lookup_order", arguments: { order_id: "O-7781" } });
    const runId = first[0].data.run;
    // Re-attached while it waits: nothing new, and the stream ends at once.
    const waiting = await openStream(`/v1/runs/${runId}/events`, { lastEventId: String(first.at(-1)!.id) });
    expect(waiting.response.status).toBe(200);
    expect(await waiting.read()).toEqual([]);
    const resumed = await api(`/v1/runs/${runId}/tool_outputs`, {
      json: { tool_outputs: [{ tool_call_id: pause.id, output: "expédiée" }] },
      as: { key: acme.key },
    });
    expect(resumed.body.data.status).toBe("completed");
    const after = await (await openStream(`/v1/runs/${runId}/events`, { lastEventId: "3" })).read();
    expect(collapse(names(after))).toEqual(["tool_call.completed", "message.delta", "run.completed"]);
    expect(after[0].id).toBe(4);
    expect(after[0].data).toMatchObject({ tool_call_id: pause.id, status: "ok", duration_ms: null });
    // A run created streaming keeps streaming its model's text after the resume.
    const text = after.filter((e) => e.event === "message.delta").map((e) => e.data.content);
    expect(text.join("")).toBe("Votre commande est expédiée.");
    expect(after.at(-1)!.data.output.text).toBe("Votre commande est expédiée.");
    expect((await scriptRecord(simBaseUrl, s.id)).requests.map((r) => r.stream)).toEqual([true, true]);
    // Without a usable Last-Event-ID: the whole history, the pause included, numbered without gaps.
    const all = await (await openStream(`/v1/runs/${runId}/events`, { lastEventId: "garbage" })).read();
    expect(all.map((e) => e.id)).toEqual(all.map((_, i) => i + 1));
    expect(all.slice(0, 3).map((e) => e.event)).toEqual(names(first));
    expect(all.slice(3)).toEqual(after);
  });

  it("streams a provider failure as run.failed with its typed error, nothing executed", async () => {
    const agent = await createAgent(acme, { tools: [crm.key("get_customer")] });
    const s = await script([
      { error: { status: 503, message: "overloaded" } },
      { error: { status: 503, message: "overloaded" } },
    ]);
    const events = await (await streamedRun(agent.id, s.marker)).read();
    expect(names(events)).toEqual(["run.created", "run.failed"]);
    expect(events[1].data.error).toMatchObject({ code: "model_error", message: expect.stringContaining("HTTP 503") });
    expect(await storedSteps(events[0].data.run)).toEqual([]);
  });

  it("keeps running when the client hangs up; GET /events with Last-Event-ID sends the rest, once", async () => {
    const agent = await createAgent(acme);
    const s = await script([
      { tool_calls: [{ name: "calculate", arguments: { expression: "6*7" } }] },
      { text: "Quarante-deux, calculé après votre départ.", delay_ms: 800 },
    ]);
    const opened = await streamedRun(agent.id, s.marker);
    const early = await opened.read(3);
    expect(names(early)).toEqual(["run.created", "tool_call.started", "tool_call.completed"]);
    const runId = early[0].data.run;
    const rest = await (await openStream(`/v1/runs/${runId}/events`, { lastEventId: "3" })).read();
    expect(rest[0].id).toBe(4);
    expect(collapse(names(rest))).toEqual(["message.delta", "run.completed"]);
    expect(
      rest
        .filter((e) => e.event === "message.delta")
        .map((e) => e.data.content)
        .join(""),
    ).toBe("Quarante-deux, calculé après votre départ.");
    expect((await api(`/v1/runs/${runId}`, { as: { key: acme.key } })).body.data.status).toBe("completed");
    expect((await scriptRecord(simBaseUrl, s.id)).served).toBe(2);
  });
});

describe("another instance", () => {
  let second: Awaited<ReturnType<typeof startApp>> | null = null;
  afterAll(async () => second?.stop());

  // A `next start` process boots in this test: allow for a loaded machine.
  it(
    "serves GET /events of a run driven by the suite's server: live while it runs, then the same replay",
    { timeout: 180_000 },
    async () => {
      second = await startSuiteInstance();
      const agent = await createAgent(acme);
      const s = await script([
        { tool_calls: [{ name: "calculate", arguments: { expression: "6*7" } }] },
        { text: "Quarante-deux, lu depuis l’autre instance.", delay_ms: 800 },
      ]);
      const opened = await streamedRun(agent.id, s.marker);
      const early = await opened.read(1);
      const runId = early[0].data.run;
      // Attached to the other process while this one drives the run: it finds each event in the database.
      const live = await (await openStream(`/v1/runs/${runId}/events`, { base: second.baseUrl })).read();
      expect(collapse(names(live))).toEqual([
        "run.created",
        "tool_call.started",
        "tool_call.completed",
        "message.delta",
        "run.completed",
      ]);
      expect(live.map((e) => e.id)).toEqual(live.map((_, i) => i + 1));
      const here = await (await openStream(`/v1/runs/${runId}/events`, {})).read();
      expect(live).toEqual(here);
      const after = await (
        await openStream(`/v1/runs/${runId}/events`, { base: second.baseUrl, lastEventId: "3" })
      ).read();
      expect(after).toEqual(here.slice(3));
    },
  );
});

describe("refusals", () => {
  it("keeps bad input typed, before any run exists", async () => {
    const agent = await createAgent(acme);
    const db = await testDb();
    const before = await db.run.count({ where: { organizationId: acme.organizationId } });
    const cases: Array<[Record<string, unknown>, Record<string, string>, string]> = [
      [{ agent: agent.id, stream: true }, {}, "stream"],
      [{ agent: agent.id, input: "x", stream: "yes" }, {}, "stream"],
      [{ agent: agent.id, input: "x", stream: true }, { "idempotency-key": "k-stream-1" }, "Idempotency-Key"],
    ];
    for (const [json, headers, field] of cases) {
      const response = await api("/v1/runs", { json, headers, as: { key: acme.key } });
      expect(response.status, JSON.stringify(json)).toBe(400);
      expect(response.headers.get("content-type")).toMatch(/^application\/json/);
      expect(response.body.error.code).toBe("invalid_parameter");
      expect(response.body.error.errors[0].field).toBe(field);
    }
    expect(await db.run.count({ where: { organizationId: acme.organizationId } })).toBe(before);
  });

  it("answers another organization's run with 404, a client-driven run with 409, and needs runs:read", async () => {
    const agent = await createAgent(acme);
    const s = await script([{ text: "ok" }]);
    const events = await (await streamedRun(agent.id, s.marker)).read();
    const runId = events[0].data.run;
    const other = await createTenant("pro");
    expect((await api(`/v1/runs/${runId}/events`, { as: { key: other.key } })).status).toBe(404);
    const writeOnly = await acme.keyWith(["runs:write"]);
    const scoped = await api(`/v1/runs/${runId}/events`, { as: { key: writeOnly } });
    expect(scoped.status).toBe(403);
    expect(scoped.body.error.code).toBe("insufficient_scope");
    const driven = await api("/v1/runs", { json: { agent: agent.id }, as: { key: acme.key } });
    const conflict = await api(`/v1/runs/${driven.body.data.id}/events`, { as: { key: acme.key } });
    expect(conflict.status).toBe(409);
    expect(conflict.body.error.code).toBe("conflict");
  });
});
