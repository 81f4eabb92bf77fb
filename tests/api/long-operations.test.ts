import { beforeAll, beforeEach, describe, expect, it } from "vitest";
import { callTool, connectCrm, createAgent, createRun, storedSteps, type ConnectedCrm } from "./dispatch-fixtures";
import { api, createTenant, crmFaults, crmState, testDb, until, type Tenant } from "./helpers";
import { approve, resetCrm } from "./proposals-helpers";

// Long operations as resources: CRM Acme's suspend_all_invoice_delivery is
// accepted at once and done by a job that finishes later. The commit answers
// `running` with the operation's id at once; the agent polls get_operation,
// which asks the service's job status, until a final state; an operator can
// cancel the job while it runs. Every step is checked against CRM Acme's store.

let tenant: Tenant;
let other: Tenant;
let crm: ConnectedCrm;
let agentId: string;

beforeAll(async () => {
  tenant = await createTenant("pro");
  other = await createTenant("pro");
  crm = await connectCrm(tenant);
  agentId = (await createAgent(tenant, { tools: [crm.key("suspend_all_invoice_delivery"), "get_operation"] })).id;
});
beforeEach(resetCrm);

const TOOL = "suspend_all_invoice_delivery";

async function jobsOf(customerId: string): Promise<Array<Record<string, any>>> {
  return ((await crmState()).jobs as Array<Record<string, any>>).filter((job) => job.customer_id === customerId);
}

async function suspendedOf(customerId: string): Promise<number> {
  return ((await crmState()).invoices as Array<Record<string, any>>).filter(
    (i) => i.customer_id === customerId && i.delivery_suspended,
  ).length;
}

/** A read_write run whose approved suspension of every C-2001 invoice was committed while CRM Acme holds its jobs. */
async function acceptedJob() {
  await crmFaults({ hold_jobs: true });
  const run = (await createRun(tenant, { agent: agentId, capabilities: "read_write" })).run.id as string;
  const proposed = await callTool(tenant, run, crm.key(TOOL), { customer_id: "C-2001" });
  expect(proposed.error).toMatchObject({ code: "APPROVAL_REQUIRED" });
  expect((await approve(tenant, proposed.error.proposal_id, "approver")).body.data.status).toBe("approved");
  const envelope = await callTool(tenant, run, crm.key(TOOL), { proposal_id: proposed.error.proposal_id });
  return { run, proposalId: proposed.error.proposal_id as string, envelope };
}

const poll = (run: string, operationId: string) =>
  callTool(tenant, run, "get_operation", { operation_id: operationId });

describe("a write the service accepts and finishes later", () => {
  it("publishes its contract as long-running, with the job status and cancel tools found on the server", async () => {
    const contract = (await api(`/v1/tools/${crm.key(TOOL)}/contract`, { as: { key: tenant.key } })).body.data;
    expect(contract.long_running).toEqual({
      id_field: "job_id",
      status_tool: crm.key("get_job_status"),
      cancel_tool: crm.key("cancel_job"),
    });
    // Its contract says what its cancel does: the service is asked to stop the job.
    expect(contract.cancellation).toBe("cancel_tool");
    const plain = (await api(`/v1/tools/${crm.key("suspend_invoice_delivery")}/contract`, { as: { key: tenant.key } }))
      .body.data;
    expect(plain.long_running).toBeUndefined();
    expect(plain.cancellation).toBe("not_interruptible");
  });

  it("answers running at once; get_operation follows the job at the service until it succeeds", async () => {
    const { run, envelope } = await acceptedJob();
    expect(envelope).toMatchObject({
      ok: true,
      result: { status: "running", customer_id: "C-2001" },
      evidence: { status: "running", operation: expect.stringMatching(/^op_/) },
    });
    const operationId = envelope.evidence.operation as string;
    const [job] = await jobsOf("C-2001");
    expect(job).toMatchObject({ job_id: envelope.result.job_id, status: "running" });
    expect(await suspendedOf("C-2001")).toBe(0);
    expect(await (await testDb()).operation.findUnique({ where: { id: operationId } })).toMatchObject({
      status: "accepted",
      outcome: null,
    });

    // Still running while the service holds the job: the agent is told so, nothing is inferred from time.
    expect(await poll(run, operationId)).toMatchObject({
      ok: true,
      result: { operation_id: operationId, status: "running", outcome: null, untrusted: true },
    });

    await crmFaults({ hold_jobs: false });
    const done = await until(async () => {
      const envelope = await poll(run, operationId);
      return envelope.result?.status === "succeeded" ? envelope : null;
    }, "the job to finish");
    const total = ((await crmState()).invoices as Array<Record<string, any>>).filter(
      (i) => i.customer_id === "C-2001",
    ).length;
    expect(done.result.outcome).toMatchObject({ status: "succeeded", result: { suspended_count: total } });
    expect(await suspendedOf("C-2001")).toBe(total);
    expect(await (await testDb()).operation.findUnique({ where: { id: operationId } })).toMatchObject({
      status: "succeeded",
      outcome: { status: "succeeded" },
    });
    const steps = await storedSteps(run);
    expect(steps.filter((step) => step.tool === "get_operation").every((step) => step.status === "ok")).toBe(true);
  });

  it("answers a repeated commit with the acceptance, never a second job", async () => {
    const { run, proposalId, envelope } = await acceptedJob();
    const again = await callTool(tenant, run, crm.key(TOOL), { proposal_id: proposalId });
    expect(again).toMatchObject({
      ok: true,
      result: envelope.result,
      evidence: { operation: envelope.evidence.operation, replayed: true, status: "running" },
    });
    expect(await jobsOf("C-2001")).toHaveLength(1);
  });

  it("lets an agent read only its own run's operations", async () => {
    const { envelope } = await acceptedJob();
    const stranger = (await createRun(tenant, { agent: agentId, capabilities: "read_write" })).run.id as string;
    expect((await poll(stranger, envelope.evidence.operation)).error).toMatchObject({
      code: "INVALID_ARGUMENTS",
      field: "/operation_id",
    });
    expect((await poll(stranger, "op_not-an-id")).error).toMatchObject({
      code: "INVALID_ARGUMENTS",
      field: "/operation_id",
    });
  });
});

describe("GET /v1/operations/{id} on a long operation", () => {
  it("follows the job at the service like get_operation: accepted while it runs, then its final state", async () => {
    const { run, proposalId, envelope } = await acceptedJob();
    // The approval card's sentence for this write, from Guichet's own describer.
    expect((await api(`/v1/proposals/${proposalId}`, { as: { key: tenant.key } })).body.data.effect).toBe(
      "Suspendre l'envoi de toutes les factures du client C-2001 : le service accepte la demande puis la traite ; le nombre de factures n'est connu qu'à la fin.",
    );
    const operationId = envelope.evidence.operation as string;
    const read = () => api(`/v1/operations/${operationId}`, { as: { key: tenant.key } });

    const held = await read();
    expect(held.status).toBe(200);
    expect(held.body.data).toMatchObject({ id: operationId, run, status: "accepted", outcome: null, error: null });
    expect(await jobsOf("C-2001")).toEqual([expect.objectContaining({ status: "running" })]);

    await crmFaults({ hold_jobs: false });
    const done = await until(async () => {
      const response = await read();
      return response.body.data.status === "succeeded" ? response.body.data : null;
    }, "GET /v1/operations to report the job's end");
    const invoices = ((await crmState()).invoices as Array<Record<string, any>>).filter(
      (i) => i.customer_id === "C-2001",
    );
    expect(done.outcome).toMatchObject({ status: "succeeded", result: { suspended_count: invoices.length } });
    expect(invoices.every((i) => i.delivery_suspended)).toBe(true);
    expect(await jobsOf("C-2001")).toEqual([expect.objectContaining({ status: "succeeded" })]);
    expect(await (await testDb()).operation.findUnique({ where: { id: operationId } })).toMatchObject({
      status: "succeeded",
      outcome: { status: "succeeded" },
    });
    // The agent's next read agrees with what the API showed.
    expect((await poll(run, operationId)).result).toMatchObject({ status: "succeeded" });
  });

  it("is the organization's own: another organization's id answers 404 and the job is not read for it", async () => {
    const { envelope } = await acceptedJob();
    const stranger = await api(`/v1/operations/${envelope.evidence.operation}`, { as: { key: other.key } });
    expect(stranger.status).toBe(404);
    expect(stranger.body.error.code).toBe("not_found");
    expect(await jobsOf("C-2001")).toEqual([expect.objectContaining({ status: "running" })]);
  });
});

describe("cancelling a running long operation", () => {
  it("asks the service to stop the job: stopped, nothing suspended, and the agent sees it cancelled", async () => {
    const { run, envelope } = await acceptedJob();
    const operationId = envelope.evidence.operation as string;
    const cancelled = await api(`/v1/operations/${operationId}/cancel`, { method: "POST", as: { key: tenant.key } });
    expect(cancelled.status).toBe(200);
    expect(cancelled.body).toMatchObject({
      outcome: "stopped",
      data: { id: operationId, status: "cancelled", outcome: { status: "cancelled" } },
    });
    expect(await jobsOf("C-2001")).toEqual([expect.objectContaining({ status: "cancelled" })]);
    await crmFaults({ hold_jobs: false });
    expect(await poll(run, operationId)).toMatchObject({
      ok: true,
      result: { status: "cancelled", error: { code: "CANCELLED" } },
    });
    expect(await suspendedOf("C-2001")).toBe(0);
    // Once cancelled, it has finished: a second cancel says so without asking the service again.
    const again = await api(`/v1/operations/${operationId}/cancel`, { method: "POST", as: { key: tenant.key } });
    expect(again.body.outcome).toBe("already_finished");
    expect(
      ((await crmState()).operations as Array<Record<string, any>>).filter((op) => op.tool === "cancel_job"),
    ).toHaveLength(1);
  });

  it("says a job that finished meanwhile had already finished, and leaves its work in place", async () => {
    const { envelope } = await acceptedJob();
    await crmFaults({ hold_jobs: false });
    const operationId = envelope.evidence.operation as string;
    // The job's time passes at the service; the cancel brings it up to date before deciding.
    await until(
      async () => ((await jobsOf("C-2001"))[0].accepted_at < new Date(Date.now() - 1_600).toISOString() ? true : null),
      "the job's duration to pass",
      10_000,
    );
    const late = await api(`/v1/operations/${operationId}/cancel`, { method: "POST", as: { key: tenant.key } });
    expect(late.body).toMatchObject({ outcome: "already_finished", data: { status: "succeeded" } });
    expect(await suspendedOf("C-2001")).toBeGreaterThan(0);
  });

  it("is the organization's own: another organization's id answers 404 and nothing is cancelled", async () => {
    const { envelope } = await acceptedJob();
    const response = await api(`/v1/operations/${envelope.evidence.operation}/cancel`, {
      method: "POST",
      as: { key: other.key },
    });
    expect(response.status).toBe(404);
    expect(response.body.error.code).toBe("not_found");
    expect(await jobsOf("C-2001")).toEqual([expect.objectContaining({ status: "running" })]);
  });
});
