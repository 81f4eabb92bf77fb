import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { createScript, scriptRecord, type ScriptRecord } from "@/connectors/model-sim/control";
import type { ScriptBody } from "@/connectors/model-sim/script";
import { callTool, storedSteps } from "./dispatch-fixtures";
import { api, baseUrl, createTenant, simBaseUrl, suiteNetwork, testDb, until, type Caller } from "./helpers";
import {
  approveOk,
  crmOperationsOf,
  getProposal,
  refuse,
  resetCrm,
  setupCrm,
  type CrmSetup,
} from "./proposals-helpers";
import { startApp } from "./server";
import { startReceiver } from "./webhook-receiver";

// A managed run's write waits for people (requires_approval) and resumes by
// itself through a job: approved → Guichet commits once in CRM Acme and the
// model reads the evidence; refused → APPROVAL_REFUSED with the reason;
// expired → APPROVAL_EXPIRED. The state is the database's: another process
// (after a restart, or racing) resumes it, and the write happens once.

const { enqueue } = await import("@/lib/jobs");
const { JOBS } = await import("@/lib/jobs/names");

let setup: CrmSetup;
/** A second app instance on the same database, started by this file (the one that restarts, then races). */
let other: Awaited<ReturnType<typeof startApp>> | null = null;
const otherEnv = () => ({
  ...process.env,
  NODE_ENV: "production" as const,
  ...suiteNetwork(),
  GUICHET_PRIVATE_ORIGINS: `${suiteNetwork().GUICHET_PRIVATE_ORIGINS},${simBaseUrl}=*`,
  GUICHET_MODEL_MISTRAL_BASE_URL: `${simBaseUrl}/v1`,
  GUICHET_MODEL_MISTRAL_API_KEY: "sk-sim-suite",
  GUICHET_MODEL_TIMEOUT_MS: "2000",
});

beforeAll(async () => {
  setup = await setupCrm(await createTenant("pro"));
});
beforeEach(resetCrm);
afterAll(async () => {
  await other?.stop();
});

const previewCall = () => ({
  name: setup.crm.key("preview_address_change"),
  arguments: { customer_id: "C-1842", destination: { kind: "saved", address_id: "ADDR-2" } },
});

async function script(turns: ScriptBody["turns"]) {
  return createScript(simBaseUrl, { turns });
}

/** POST /v1/runs with input, read_write, on the suite's server or another instance. */
async function startRun(marker: string, at?: string, agentId = setup.agentId, extra: { stream?: boolean } = {}) {
  const body = {
    agent: agentId,
    input: "Changez l'adresse de livraison de C-1842 pour Lyon.",
    instructions: marker,
    capabilities: "read_write",
    ...(extra.stream ? {} : { wait: 60 }),
    ...extra,
  };
  if (extra.stream) {
    // A streamed run answers Server-Sent Events: read to the end, then the run as stored.
    const response = await fetch(`${at ?? baseUrl}/v1/runs`, {
      method: "POST",
      headers: { authorization: `Bearer ${setup.tenant.key}`, "content-type": "application/json" },
      body: JSON.stringify(body),
    });
    const text = await response.text();
    const runId = /"run":"(run_[^"]+)"/.exec(text)?.[1];
    return { status: response.status, body: { data: runId ? await runOf(runId) : null } as any };
  }
  if (!at) return api("/v1/runs", { json: body, as: { key: setup.tenant.key } });
  const response = await fetch(`${at}/v1/runs`, {
    method: "POST",
    headers: { authorization: `Bearer ${setup.tenant.key}`, "content-type": "application/json" },
    body: JSON.stringify(body),
  });
  return { status: response.status, body: (await response.json()) as any };
}

async function runOf(id: string) {
  return (await api(`/v1/runs/${id}`, { as: { key: setup.tenant.key } })).body.data as Record<string, any>;
}

const settled = (id: string) =>
  until(async () => {
    const run = await runOf(id);
    return run.status !== "requires_approval" && run.status !== "active" ? run : null;
  }, "the run to resume and end");

/** The tool message answering one call in one request the model received, parsed. */
function answerTo(request: ScriptRecord["requests"][number], callId: string): any {
  const message = request.messages.find((m) => m.role === "tool" && m.tool_call_id === callId);
  return message ? JSON.parse(String(message.content)) : undefined;
}

/** The id of the model's first tool call, as the stored transcript holds it. */
async function firstCallId(runId: string): Promise<string> {
  const messages = (await api(`/v1/runs/${runId}/messages`, { as: { key: setup.tenant.key } })).body.data;
  return messages.find((m: any) => m.role === "assistant" && m.tool_calls)?.tool_calls[0].id;
}

async function pausedRun(at?: string) {
  const s = await script([{ tool_calls: [previewCall()] }, { text: "C'est fait : la livraison part à Lyon." }]);
  const response = await startRun(s.marker, at);
  expect(response.status).toBe(201);
  const run = response.body.data;
  expect(run).toMatchObject({ status: "requires_approval", output: null, pending_proposals: [expect.any(String)] });
  return { s, run, proposalId: run.pending_proposals[0] as string };
}

describe("requires_approval", () => {
  it("waits for people, then commits once after the approval and hands the model the evidence", async () => {
    const { s, run, proposalId } = await pausedRun();
    expect(await runOf(run.id)).toMatchObject({ status: "requires_approval", pending_proposals: [proposalId] });
    expect(await getProposal(setup.tenant, proposalId)).toMatchObject({ status: "pending", run: run.id });
    // Nothing was written yet, and the model was asked only once.
    expect(await crmOperationsOf(run.id)).toHaveLength(0);
    expect((await scriptRecord(simBaseUrl, s.id)).requests).toHaveLength(1);

    await approveOk(setup.tenant, proposalId, "approver");
    const done = await settled(run.id);
    expect(done).toMatchObject({
      status: "completed",
      pending_proposals: [],
      output: { text: "C'est fait : la livraison part à Lyon." },
    });
    const operations = await crmOperationsOf(run.id);
    expect(operations).toHaveLength(1);
    expect(operations[0]).toMatchObject({ status: "succeeded" });
    expect(await getProposal(setup.tenant, proposalId)).toMatchObject({ status: "consumed" });
    expect((await storedSteps(run.id)).map((step) => step.tool)).toEqual([
      setup.crm.key("preview_address_change"),
      setup.crm.key("commit_address_change"),
    ]);

    const requests = (await scriptRecord(simBaseUrl, s.id)).requests;
    expect(requests).toHaveLength(2);
    const answer = answerTo(requests[1], await firstCallId(run.id));
    expect(answer).toMatchObject({
      approval: { proposal_id: proposalId, status: "approved" },
      untrusted_content: { ok: true },
      evidence: { tool: expect.stringContaining(setup.crm.key("commit_address_change")) },
    });
  });

  it("hands the model APPROVAL_REFUSED with the reason, writing nothing", async () => {
    const { s, run, proposalId } = await pausedRun();
    const refused = await refuse(setup.tenant, proposalId, "approver", "Le client a déménagé entre-temps.");
    expect(refused.status).toBe(200);
    expect(await settled(run.id)).toMatchObject({ status: "completed" });
    const requests = (await scriptRecord(simBaseUrl, s.id)).requests;
    expect(requests).toHaveLength(2);
    expect(answerTo(requests[1], await firstCallId(run.id))).toMatchObject({
      untrusted_content: null,
      error: {
        code: "APPROVAL_REFUSED",
        proposal_id: proposalId,
        message: expect.stringContaining("Le client a déménagé entre-temps."),
      },
    });
    expect(await crmOperationsOf(run.id)).toHaveLength(0);
  });

  it("schedules a resume at the proposal's expiry, which hands the model APPROVAL_EXPIRED", async () => {
    const { s, run, proposalId } = await pausedRun();
    const db = await testDb();
    // The clock moves: the proposal's deadline passes, and so does the start of its expiry job.
    await db.proposal.update({ where: { id: proposalId }, data: { expiresAt: new Date(Date.now() - 1000) } });
    const key = `expiry:${proposalId}`;
    const moved = (process.env.DATABASE_URL ?? "").startsWith("file:")
      ? (
          await db.backgroundJob.updateMany({
            where: { name: JOBS.resumeRun, singletonKey: key, state: "created" },
            data: { startAfter: new Date() },
          })
        ).count
      : await db.$executeRawUnsafe(
          `UPDATE pgboss.job SET start_after = now() WHERE name = $1 AND singleton_key = $2 AND state = 'created'`,
          JOBS.resumeRun,
          key,
        );
    expect(moved).toBe(1);
    expect(await settled(run.id)).toMatchObject({ status: "completed" });
    const requests = (await scriptRecord(simBaseUrl, s.id)).requests;
    expect(answerTo(requests[1], await firstCallId(run.id))).toMatchObject({
      error: { code: "APPROVAL_EXPIRED", proposal_id: proposalId },
    });
    expect(await crmOperationsOf(run.id)).toHaveLength(0);
  });

  it("waits for a direct write by default, and runs it at once only under an explicit allow row", async () => {
    const suspend = {
      name: setup.crm.key("suspend_invoice_delivery"),
      arguments: { customer_id: "C-2001", invoice_ids: ["INV-2001-001"] },
    };
    const waiting = await script([{ tool_calls: [suspend] }, { text: "Suspendu." }]);
    const paused = (await startRun(waiting.marker)).body.data;
    expect(paused).toMatchObject({ status: "requires_approval", pending_proposals: [expect.any(String)] });
    expect(await crmOperationsOf(paused.id)).toHaveLength(0);
    await api(`/v1/runs/${paused.id}/cancel`, { method: "POST", as: { key: setup.tenant.key } });

    const current = await api("/v1/policies", { as: { key: setup.tenant.key } });
    const put = await api("/v1/policies", {
      method: "PUT",
      json: {
        rules: [
          { id: "crm-invoice-suspension", match: { tools: ["mcp_*_suspend_invoice_delivery"] }, decision: "allow" },
          ...current.body.data.rules,
        ],
        base_version: current.body.data.version,
      },
      as: await setup.tenant.as("admin"),
    });
    expect(put.status).toBe(200);
    const direct = await script([{ tool_calls: [suspend] }, { text: "Suspendu." }]);
    const run = (await startRun(direct.marker)).body.data;
    expect(run).toMatchObject({ status: "completed", pending_proposals: [] });
    expect(await crmOperationsOf(run.id)).toEqual([expect.objectContaining({ status: "succeeded" })]);
    const requests = (await scriptRecord(simBaseUrl, direct.id)).requests;
    expect(answerTo(requests[1], await firstCallId(run.id))).toMatchObject({
      untrusted_content: { ok: true, result: { suspended_count: 1 } },
    });
    // Back to the default table for the next tests.
    await api("/v1/policies", {
      method: "PUT",
      json: { rules: current.body.data.rules, base_version: put.body.data.version },
      as: await setup.tenant.as("admin"),
    });
  });
});

describe("webhook events of a pause", () => {
  it("records one run.requires_approval per pause, from the run's status change, naming every proposal it waits for", async () => {
    const receiver = await startReceiver();
    const admin = await setup.tenant.as("admin");
    const endpoint = await api("/v1/webhook_endpoints", {
      json: { url: receiver.url, events: ["proposal.created", "run.requires_approval"] },
      as: admin,
    });
    expect(endpoint.status).toBe(201);
    try {
      const suspend = {
        name: setup.crm.key("suspend_invoice_delivery"),
        arguments: { customer_id: "C-2001", invoice_ids: ["INV-2001-001"] },
      };
      // Two writes in one turn: two proposals, one pause.
      const s = await script([{ tool_calls: [previewCall(), suspend] }, { text: "Fait." }]);
      const run = (await startRun(s.marker)).body.data;
      expect(run).toMatchObject({ status: "requires_approval" });
      expect(run.pending_proposals).toHaveLength(2);
      // A client-driven run's proposal: its status does not change, so no run.requires_approval.
      const clientRun = await setup.run();
      const preview = await callTool(setup.tenant, clientRun, previewCall().name, previewCall().arguments);
      expect(preview.evidence.proposal).toMatchObject({ status: "pending" });

      const db = await testDb();
      const events = await db.outboxEvent.findMany({
        where: {
          organizationId: setup.tenant.organizationId,
          deliveries: { some: { endpointId: endpoint.body.data.id } },
        },
        select: { type: true, payload: true },
      });
      const of = (type: string, runId: string) =>
        events
          .filter((e) => e.type === type && (e.payload as any).data.run === runId)
          .map((e) => (e.payload as any).data);
      expect(of("run.requires_approval", run.id)).toEqual([
        {
          run: run.id,
          agent: setup.agentId,
          status: "requires_approval",
          proposals: run.pending_proposals,
          console_url: expect.stringMatching(/\/approbations$/),
        },
      ]);
      expect(
        of("proposal.created", run.id)
          .map((e) => e.proposal)
          .sort(),
      ).toEqual([...run.pending_proposals].sort());
      expect(of("proposal.created", clientRun)).toHaveLength(1);
      expect(of("run.requires_approval", clientRun)).toEqual([]);
      await api(`/v1/runs/${run.id}/cancel`, { method: "POST", as: { key: setup.tenant.key } });
    } finally {
      await api(`/v1/webhook_endpoints/${endpoint.body.data.id}`, { method: "DELETE", as: admin });
      await receiver.close();
    }
  });
});

describe("resumption across processes", () => {
  // Two `next start` processes boot in this test: allow for a loaded machine.
  it("resumes a run paused by a process that crashed, after a restart", { timeout: 240_000 }, async () => {
    const first = await startApp(otherEnv());
    const { s, run, proposalId } = await pausedRun(first.baseUrl);
    await first.crash();
    other = await startApp(otherEnv());
    const approver: Caller = await setup.tenant.as("approver");
    const sha = (await getProposal(setup.tenant, proposalId)).arguments_sha256;
    const approved = await fetch(`${other.baseUrl}/v1/proposals/${proposalId}/approve`, {
      method: "POST",
      headers: { cookie: approver.cookie!, "content-type": "application/json", origin: other.baseUrl },
      body: JSON.stringify({ arguments_sha256: sha }),
    });
    expect(approved.status).toBe(200);
    expect(await settled(run.id)).toMatchObject({ status: "completed" });
    expect(await crmOperationsOf(run.id)).toHaveLength(1);
    expect((await scriptRecord(simBaseUrl, s.id)).requests).toHaveLength(2);
  });

  it(
    "two instances racing to resume the same run commit once and call the model once more",
    { timeout: 180_000 },
    async () => {
      other ??= await startApp(otherEnv());
      const { s, run, proposalId } = await pausedRun();
      await approveOk(setup.tenant, proposalId, "approver");
      // More resume jobs for the same run, taken by whichever instance polls first: both servers work this queue.
      await Promise.all(
        Array.from({ length: 6 }, () =>
          enqueue(JOBS.resumeRun, { organizationId: setup.tenant.organizationId, runId: run.id }),
        ),
      );
      expect(await settled(run.id)).toMatchObject({ status: "completed" });
      // Every job ran (none left waiting), and still: one commit, one step, one more model call.
      await until(async () => (await jobsLeft(run.id)) === 0, "every resume job to finish");
      expect(await crmOperationsOf(run.id)).toHaveLength(1);
      expect(
        (await storedSteps(run.id)).filter((step) => step.tool === setup.crm.key("commit_address_change")),
      ).toHaveLength(1);
      expect((await scriptRecord(simBaseUrl, s.id)).requests).toHaveLength(2);
    },
  );
});

/** Resume jobs of a run not yet finished, in whichever backend the suite runs. */
async function jobsLeft(runId: string): Promise<number> {
  const db = await testDb();
  if ((process.env.DATABASE_URL ?? "").startsWith("file:")) {
    const jobs = await db.backgroundJob.findMany({
      where: { name: JOBS.resumeRun, state: { in: ["created", "active"] }, startAfter: { lte: new Date() } },
      select: { data: true },
    });
    return jobs.filter((job) => (job.data as { runId?: string }).runId === runId).length;
  }
  const rows = await db.$queryRawUnsafe<{ n: number }[]>(
    `SELECT COUNT(*)::int AS n FROM pgboss.job WHERE name = $1 AND data->>'runId' = $2 AND state IN ('created', 'retry', 'active') AND start_after <= now()`,
    JOBS.resumeRun,
    runId,
  );
  return Number(rows[0].n);
}

describe("retention", () => {
  it("purges the messages and answer of runs older than the retention, keeping the run's record", async () => {
    const s = await script([{ text: "Bonjour !", usage: { prompt_tokens: 50, completion_tokens: 3 } }]);
    // Streamed: its stored events carry the model's text (message.delta) and the answer (run.completed).
    const old = (await startRun(s.marker, undefined, setup.agentId, { stream: true })).body.data;
    const s2 = await script([{ text: "Toujours là." }]);
    const recent = (await startRun(s2.marker)).body.data;
    expect(old.status).toBe("completed");
    const db = await testDb();
    const types = async (runId: string) =>
      (await db.runEvent.findMany({ where: { runId }, orderBy: { seq: "asc" }, select: { type: true } })).map(
        (e) => e.type,
      );
    expect(await types(old.id)).toEqual(["run.created", "message.delta", "run.completed"]);
    const recentEvents = await types(recent.id);
    expect(recentEvents).toEqual(["run.created", "run.completed"]);
    await db.run.update({
      where: { id: old.id },
      data: { createdAt: new Date(Date.now() - 31 * 24 * 60 * 60 * 1000) },
    });
    // The retention job the servers repeat, run now instead of within the hour.
    expect(await enqueue(JOBS.runRetention, {})).toEqual(expect.any(String));
    const purged = await until(async () => {
      const response = await api(`/v1/runs/${old.id}/messages`, { as: { key: setup.tenant.key } });
      return response.body.purged_at ? response : null;
    }, "the old run's transcript to be purged");
    expect(purged.status).toBe(200);
    expect(purged.body).toEqual({ data: [], purged_at: expect.any(String) });
    expect(await runOf(old.id)).toMatchObject({
      status: "completed",
      output: null,
      usage: { input_tokens: 50, output_tokens: 3 },
    });
    const stored = await db.run.findUniqueOrThrow({ where: { id: old.id }, select: { transcript: true } });
    expect(stored.transcript).toBeNull();
    // Its stream is gone with it: nothing left to replay.
    expect(await types(old.id)).toEqual([]);
    const replay = await fetch(`${baseUrl}/v1/runs/${old.id}/events`, {
      headers: { authorization: `Bearer ${setup.tenant.key}`, accept: "text/event-stream" },
    });
    expect(replay.status).toBe(200);
    expect(await replay.text()).not.toContain("Bonjour");
    expect(await types(recent.id)).toEqual(recentEvents);
    // A run inside the window keeps its conversation.
    const kept = await api(`/v1/runs/${recent.id}/messages`, { as: { key: setup.tenant.key } });
    expect(kept.body.purged_at).toBeNull();
    expect(kept.body.data.map((m: any) => m.role)).toEqual(["system", "user", "assistant"]);
  });
});
