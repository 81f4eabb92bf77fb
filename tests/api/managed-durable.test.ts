import { EventSourceParserStream } from "eventsource-parser/stream";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createScript, scriptRecord } from "@/connectors/model-sim/control";
import type { ScriptBody } from "@/connectors/model-sim/script";
import { api, baseUrl, createTenant, crmBaseUrl, simBaseUrl, suiteNetwork, testDb, until } from "./helpers";
import { approveOk, crmOperationsOf, resetCrm, setupCrm, type CrmSetup } from "./proposals-helpers";
import { startApp } from "./server";

// Durable managed runs: the loop runs in the background under a lease, and
// when its instance is killed (SIGKILL, nothing recorded on the way out) the
// suite's server takes the run over from its last stored step. The second
// instance is killed at a point the test establishes from stored state (the
// conversation, model-sim's requests, CRM Acme's held writes), never after a
// fixed sleep; the assertions read Guichet's database and CRM Acme's records.

type App = Awaited<ReturnType<typeof startApp>>;
let second: App | null = null;
let setup: CrmSetup;

/** Another instance on the suite's database, with the suite's model and a short lease. */
function startSecond(): Promise<App> {
  const network = suiteNetwork();
  return startApp({
    ...process.env,
    NODE_ENV: "production",
    ...network,
    GUICHET_PRIVATE_ORIGINS: `${network.GUICHET_PRIVATE_ORIGINS},${simBaseUrl}=*`,
    GUICHET_MODEL_MISTRAL_BASE_URL: `${simBaseUrl}/v1`,
    GUICHET_MODEL_MISTRAL_API_KEY: "sk-sim-suite",
    // The model call the test holds open must not time out before the kill.
    GUICHET_MODEL_TIMEOUT_MS: "60000",
    GUICHET_RUN_LEASE_MS: "3000",
  });
}

beforeAll(async () => {
  setup = await setupCrm(await createTenant("pro"));
  second = await startSecond();
}, 180_000);
afterAll(async () => second?.stop());

const key = () => setup.tenant.key;

async function script(turns: ScriptBody["turns"]) {
  return createScript(simBaseUrl, { turns });
}

async function startRun(marker: string, base: string, extra: Record<string, unknown> = {}) {
  const response = await fetch(`${base}/v1/runs`, {
    method: "POST",
    headers: { authorization: `Bearer ${key()}`, "content-type": "application/json" },
    body: JSON.stringify({
      agent: setup.agentId,
      input: "Changez l'adresse de livraison de C-1842 pour Lyon.",
      instructions: marker,
      capabilities: "read_write",
      ...extra,
    }),
  });
  return { status: response.status, body: (await response.json()) as any };
}

const runOf = async (id: string) => (await api(`/v1/runs/${id}`, { as: { key: key() } })).body.data;
const storedRun = async (id: string) => (await testDb()).run.findUniqueOrThrow({ where: { id } });

/** The tool messages of the stored conversation, by the call id they answer. */
async function toolAnswers(runId: string): Promise<string[]> {
  const messages = (await storedRun(runId)).transcript as Array<{ role: string; tool_call_id?: string }>;
  return messages.filter((message) => message.role === "tool").map((message) => message.tool_call_id!);
}

const GET_CUSTOMER = () => ({ name: setup.crm.key("get_customer"), arguments: { customer_id: "C-1842" } });
const PREVIEW = () => ({
  name: setup.crm.key("preview_address_change"),
  arguments: { customer_id: "C-1842", destination: { kind: "saved", address_id: "ADDR-2" } },
});

describe("a managed run whose instance is killed", () => {
  it(
    "is finished by the other instance from its last stored step: each tool result once, one write",
    { timeout: 240_000 },
    async () => {
      await resetCrm();
      const s = await script([
        { tool_calls: [GET_CUSTOMER()] },
        // In flight when the instance dies: made again by the instance that takes the run over (the next turn).
        { text: "Jamais reçu.", delay_ms: 60_000 },
        { tool_calls: [PREVIEW()] },
        { text: "Le changement d'adresse est fait." },
      ]);
      const started = await startRun(s.marker, second!.baseUrl);
      expect(started.status).toBe(201);
      expect(started.body.data.status).toBe("active");
      const runId = started.body.data.id as string;
      // The read's result is stored and the second model call is in flight: kill there.
      await until(async () => (await toolAnswers(runId)).length === 1, "the read's result stored");
      await until(async () => (await scriptRecord(simBaseUrl, s.id)).served === 2, "the second model call");
      await second!.crash();
      const waiting = await until(
        async () => {
          const run = await runOf(runId);
          return run.status === "requires_approval" ? run : null;
        },
        "the takeover to reach the approval",
        60_000,
      );
      await approveOk(setup.tenant, waiting.pending_proposals[0], "approver");
      const done = await until(async () => {
        const run = await runOf(runId);
        return run.status === "completed" ? run : null;
      }, "the run to complete");
      expect(done.output.text).toBe("Le changement d'adresse est fait.");
      const answers = await toolAnswers(runId);
      expect(answers).toHaveLength(2);
      expect(new Set(answers).size).toBe(2);
      expect(await crmOperationsOf(runId)).toEqual([expect.objectContaining({ status: "succeeded" })]);
      // Nobody executes it any more, and the calls it held for people were cleared with their answers.
      expect(await storedRun(runId)).toMatchObject({ leaseOwner: null, leaseExpiresAt: null, pendingApproval: null });
      expect((await scriptRecord(simBaseUrl, s.id)).served).toBe(4);
      second = await startSecond();
    },
  );

  // Released before the takeover, the held write went through: the status says success. Kept held, the status
  // finds nothing yet: the operation is unknown and escalated — and CRM Acme never gets a second request.
  for (const releasedFirst of [true, false])
    it(
      `while a commit is in flight (write ${releasedFirst ? "applied" : "still held"}): the status protocol decides, never a second send`,
      { timeout: 240_000 },
      async () => {
        await resetCrm();
        const policies = await api("/v1/policies", { as: { key: key() } });
        const allow = await api("/v1/policies", {
          method: "PUT",
          json: {
            rules: [
              { id: "durable-suspension", match: { tools: ["mcp_*_suspend_invoice_delivery"] }, decision: "allow" },
              ...policies.body.data.rules,
            ],
            base_version: policies.body.data.version,
          },
          as: await setup.tenant.as("admin"),
        });
        expect(allow.status).toBe(200);
        await crmFaults({ hold_writes: true });
        const suspend = {
          name: setup.crm.key("suspend_invoice_delivery"),
          arguments: { customer_id: "C-2001", invoice_ids: ["INV-2001-001"] },
        };
        const s = await script([{ tool_calls: [suspend] }, { text: "Suspendu." }]);
        const runId = (await startRun(s.marker, second!.baseUrl)).body.data.id as string;
        await until(async () => (await crmHeld()) === 1, "the commit held by CRM Acme");
        // A write's answer was stored before its call ran (a read-only answer waits for its first result): the
        // takeover goes on with this very call, never asks the model again.
        const conversation = (await storedRun(runId)).transcript as Array<{ role: string; tool_calls?: unknown }>;
        expect(conversation.at(-1)).toMatchObject({
          role: "assistant",
          tool_calls: [expect.objectContaining({ function: expect.objectContaining({ name: suspend.name }) })],
        });
        await second!.crash();
        if (releasedFirst) await crmFaults({ hold_writes: false });
        const db = await testDb();
        const settled = await until(
          async () => {
            const [operation] = await db.operation.findMany({ where: { runId } });
            return operation && operation.status !== "running" && operation.status !== "queued" ? operation : null;
          },
          "the takeover to settle the commit by its status",
          120_000,
        );
        if (releasedFirst) {
          expect(settled.status).toBe("succeeded");
          const done = await until(async () => {
            const run = await runOf(runId);
            return run.status === "completed" ? run : null;
          }, "the run to complete");
          expect(done.output.text).toBe("Suspendu.");
        } else {
          expect(settled.status).toBe("unknown");
          // The one request CRM Acme got is still the first one, held: nothing was sent again.
          expect(await crmHeld()).toBe(1);
          await crmFaults({ hold_writes: false });
        }
        const operations = await until(async () => {
          const rows = await crmOperationsOf(runId);
          return rows.length ? rows : null;
        }, "CRM Acme to record the write");
        expect(operations).toEqual([
          expect.objectContaining({ status: "succeeded", idempotency_key: settled.idempotencyKey }),
        ]);
        await api("/v1/policies", {
          method: "PUT",
          json: { rules: policies.body.data.rules, base_version: allow.body.data.version },
          as: await setup.tenant.as("admin"),
        });
        second = await startSecond();
      },
    );

  it("keeps a stream's event ids without gaps or repeats across the takeover", { timeout: 240_000 }, async () => {
    await resetCrm();
    const s = await script([
      { tool_calls: [GET_CUSTOMER()] },
      { text: "Jamais reçu.", delay_ms: 60_000 },
      { text: "Repris par l'autre instance." },
    ]);
    const first = await openEvents(`${second!.baseUrl}/v1/runs`, {
      method: "POST",
      body: { agent: setup.agentId, input: "Bonjour", instructions: s.marker, stream: true },
    });
    const early = await first.until((event) => event.event === "tool_call.completed");
    const runId = early[0].data.run as string;
    await until(async () => (await scriptRecord(simBaseUrl, s.id)).served === 2, "the second model call");
    await second!.crash();
    const last = early[early.length - 1].id;
    const rest = await (
      await openEvents(`${baseUrl}/v1/runs/${runId}/events`, { lastEventId: String(last) })
    ).until((event) => event.event === "run.completed");
    const ids = [...early, ...rest].map((event) => event.id);
    expect(ids).toEqual(ids.map((_, index) => index + 1));
    expect(rest.at(-1)?.data.output.text).toBe("Repris par l'autre instance.");
    second = await startSecond();
  });
});

async function crmFaults(patch: Record<string, unknown>) {
  const response = await fetch(`${crmBaseUrl}/__control/faults`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify(patch),
  });
  expect(response.ok).toBe(true);
}

async function crmHeld(): Promise<number> {
  return ((await (await fetch(`${crmBaseUrl}/__control/held`)).json()) as { writes: number }).writes;
}

interface Sse {
  id: number;
  event: string;
  data: any;
}

/** An SSE answer read until `stop` matches an event (or the stream ends, or the server dies). */
async function openEvents(url: string, init: { method?: string; body?: unknown; lastEventId?: string }) {
  const response = await fetch(url, {
    method: init.method ?? "GET",
    headers: {
      authorization: `Bearer ${key()}`,
      accept: "text/event-stream",
      ...(init.body ? { "content-type": "application/json" } : {}),
      ...(init.lastEventId ? { "last-event-id": init.lastEventId } : {}),
    },
    body: init.body ? JSON.stringify(init.body) : undefined,
  });
  expect(response.status).toBeLessThan(300);
  const reader = response
    .body!.pipeThrough(new TextDecoderStream())
    .pipeThrough(new EventSourceParserStream())
    .getReader();
  return {
    async until(stop: (event: Sse) => boolean): Promise<Sse[]> {
      const events: Sse[] = [];
      for (;;) {
        const { done, value } = await reader.read();
        if (done) return events;
        const event = { id: Number(value.id), event: value.event ?? "message", data: JSON.parse(value.data) };
        events.push(event);
        if (stop(event)) {
          void reader.cancel().catch(() => undefined);
          return events;
        }
      }
    },
  };
}

describe("POST /v1/runs with input answers without running the loop in the request", () => {
  it("answers at once (active), or with `wait` once the run pauses or ends; `wait` above 60 is typed", async () => {
    const s = await script([{ tool_calls: [GET_CUSTOMER()] }, { text: "Lu.", delay_ms: 500 }]);
    const started = await startRun(s.marker, baseUrl);
    expect(started.status).toBe(201);
    expect(started.body.data).toMatchObject({ status: "active", output: null });
    const ended = await until(async () => {
      const run = await runOf(started.body.data.id);
      return run.status === "completed" ? run : null;
    }, "the background run to complete");
    expect(ended.output.text).toBe("Lu.");

    const waited = await script([{ text: "Tout de suite." }]);
    const answered = await startRun(waited.marker, baseUrl, { wait: 30 });
    expect(answered.status).toBe(201);
    expect(answered.body.data).toMatchObject({ status: "completed", output: { text: "Tout de suite." } });

    const runsBefore = await (await testDb()).run.count();
    for (const [extra, field] of [
      [{ wait: 61 }, "wait"],
      [{ wait: -1 }, "wait"],
      [{ wait: 5, stream: true }, "wait"],
    ] as const) {
      const refused = await startRun(waited.marker, baseUrl, extra);
      expect(refused.status, JSON.stringify(extra)).toBe(400);
      expect(refused.body.error).toMatchObject({ code: "invalid_parameter" });
      expect(refused.body.error.errors[0].field).toBe(field);
    }
    const driven = await api("/v1/runs", { json: { agent: setup.agentId, wait: 5 }, as: { key: key() } });
    expect(driven.status).toBe(400);
    expect(await (await testDb()).run.count()).toBe(runsBefore);
  });

  it("ends a run whose loop meets a database error failed/internal_error, answered as the typed run, never a 500", async () => {
    const s = await script([{ tool_calls: [GET_CUSTOMER()] }, { text: "Jamais." }]);
    const answered = await startRun(s.marker, baseUrl, { wait: 30, metadata: { guichet_test_fault: "store_error" } });
    expect(answered.status).toBe(201);
    expect(answered.body.data).toMatchObject({ status: "failed", error: { code: "internal_error" } });
    const stored = await storedRun(answered.body.data.id);
    expect(stored).toMatchObject({ status: "failed", leaseOwner: null });
    expect((await scriptRecord(simBaseUrl, s.id)).served).toBe(1);
  });

  it("ends a run whose opening meets a database error failed/internal_error at once, its model never asked", async () => {
    const s = await script([{ text: "Jamais." }]);
    const db = await testDb();
    const before = new Set((await db.run.findMany({ select: { id: true } })).map((run) => run.id));
    const answered = await startRun(s.marker, baseUrl, { wait: 30, metadata: { guichet_test_fault: "opening_error" } });
    expect(answered.status).toBe(500);
    expect(answered.body.error.code).toBe("internal_error");
    const created = (
      await db.run.findMany({ select: { id: true, status: true, modelId: true, failure: true } })
    ).filter((run) => !before.has(run.id));
    // Stored by the request, never opened: failed, not left active for nothing to execute until it expires.
    expect(created).toEqual([
      expect.objectContaining({
        status: "failed",
        modelId: null,
        failure: expect.objectContaining({ code: "internal_error" }),
      }),
    ]);
    expect((await scriptRecord(simBaseUrl, s.id)).served).toBe(0);
  });
});
