import { existsSync } from "node:fs";
import { beforeAll, beforeEach, describe, expect, it } from "vitest";
import { storedPath, upload } from "./agents-helpers";
import { callTool, connectCrm, createAgent, createRun, storedSteps, type ConnectedCrm } from "./dispatch-fixtures";
import { api, createTenant, crmState, testDb, until, type Tenant } from "./helpers";
import {
  ADDR_1,
  approve,
  approvedAddressChange,
  commit,
  CRM_READS,
  CRM_WRITES,
  crmCustomer,
  getProposal,
  previewAddress,
  refuse,
  resetCrm,
  type CrmSetup,
} from "./proposals-helpers";

// Deleting an agent keeps the audit trail: its runs, their steps, proposals and
// operations stay readable, with `agent: null`. Such a run accepts no more tool
// calls — the code of a finished run, CANCELLED — so nothing it proposed can
// reach CRM Acme; approving its pending proposals is refused (agent_deleted),
// refusing them still closes the card.

let tenant: Tenant;
let crm: ConnectedCrm;

beforeAll(async () => {
  tenant = await createTenant("pro");
  crm = await connectCrm(tenant);
});
beforeEach(resetCrm);

/** An agent carrying CRM Acme's tools, and runs of it — shaped like the proposals suites' setup. */
async function crmAgent(): Promise<CrmSetup> {
  const agent = await createAgent(tenant, { tools: [...CRM_READS, ...CRM_WRITES].map(crm.key) });
  return {
    tenant,
    crm,
    agentId: agent.id,
    run: async () => (await createRun(tenant, { agent: agent.id, capabilities: "read_write" })).run.id as string,
  };
}

async function deleteAgent(agentId: string) {
  const response = await api(`/v1/agents/${agentId}`, { method: "DELETE", as: { key: tenant.key } });
  expect(response.status).toBe(200);
  expect(response.body).toEqual({ data: { id: agentId, deleted: true } });
}

const asKey = () => ({ key: tenant.key });

describe("the runs of a deleted agent", () => {
  it("keep their steps and answer with agent: null, while the agent, its documents and their bytes are gone", async () => {
    const setup = await crmAgent();
    const document = await upload(
      tenant,
      `/v1/agents/${setup.agentId}/documents`,
      "# Procédure\nVérifier l’adresse.",
      "procedure.md",
    );
    expect(document.status).toBe(201);
    const bytes = await storedPath(document.body.data.id);
    const runId = await setup.run();
    expect((await callTool(tenant, runId, "calculate", { expression: "6 * 7" })).ok).toBe(true);
    expect((await callTool(tenant, runId, crm.key("get_customer"), { customer_id: "C-1842" })).ok).toBe(true);
    const runBefore = (await api(`/v1/runs/${runId}`, { as: asKey() })).body.data;
    const stepsBefore = (await api(`/v1/runs/${runId}/steps`, { as: asKey() })).body.data;
    expect(stepsBefore).toHaveLength(2);

    await deleteAgent(setup.agentId);

    expect((await api(`/v1/agents/${setup.agentId}`, { as: asKey() })).status).toBe(404);
    const db = await testDb();
    expect(await db.file.findUnique({ where: { id: document.body.data.id } })).toBeNull();
    expect(existsSync(bytes)).toBe(false);

    const run = await api(`/v1/runs/${runId}`, { as: asKey() });
    expect(run.status).toBe(200);
    // Only the agent changed: the stored status is the record, the dispatcher is what refuses.
    expect(run.body.data).toEqual({ ...runBefore, agent: null });
    expect(run.body.data.status).toBe("active");
    const steps = await api(`/v1/runs/${runId}/steps`, { as: asKey() });
    expect(steps.status).toBe(200);
    expect(steps.body.data).toEqual(stepsBefore);
    expect(await db.run.findUniqueOrThrow({ where: { id: runId } })).toMatchObject({ agentId: null });
    expect(await db.step.count({ where: { runId } })).toBe(2);
  });

  it("are listed with agent: null, and the agent filter matches only live agents' runs", async () => {
    const [gone, kept] = [await crmAgent(), await crmAgent()];
    const goneRun = await gone.run();
    const keptRun = await kept.run();
    await deleteAgent(gone.agentId);

    const all = await api(`/v1/runs?limit=100`, { as: asKey() });
    expect(all.status).toBe(200);
    expect(all.body.data.find((r: { id: string }) => r.id === goneRun)).toMatchObject({ id: goneRun, agent: null });
    expect(all.body.data.find((r: { id: string }) => r.id === keptRun)).toMatchObject({
      id: keptRun,
      agent: kept.agentId,
    });
    const byGone = await api(`/v1/runs?agent=${gone.agentId}`, { as: asKey() });
    expect(byGone.status).toBe(200);
    expect(byGone.body).toEqual({ data: [], next_cursor: null });
    const byKept = await api(`/v1/runs?agent=${kept.agentId}`, { as: asKey() });
    expect(byKept.body.data.map((r: { id: string }) => r.id)).toEqual([keptRun]);
  });

  it("refuse every tool call with CANCELLED: the step records the refusal and nothing executes", async () => {
    const setup = await crmAgent();
    const runId = await setup.run();
    await deleteAgent(setup.agentId);
    const db = await testDb();
    const crmBefore = await crmState();

    const calls: [string, Record<string, unknown>][] = [
      ["calculate", { expression: "6 * 7" }],
      [crm.key("get_customer"), { customer_id: "C-1842" }],
      [
        crm.key("preview_address_change"),
        { customer_id: "C-1842", destination: { kind: "saved", address_id: "ADDR-2" } },
      ],
      [crm.key("commit_address_change"), { proposal_id: "prop_00000000000000000000000000" }],
      ["no_such_tool", {}],
    ];
    for (const [tool, args] of calls) {
      const envelope = await callTool(tenant, runId, tool, args);
      expect(envelope).toEqual({
        ok: false,
        error: {
          code: "CANCELLED",
          message: expect.stringContaining("agent of this run was deleted"),
          retryable: false,
          field: null,
        },
      });
    }

    const steps = await storedSteps(runId);
    expect(steps.map((s) => [s.tool, s.version, s.status, s.errorCode])).toEqual(
      calls.map(([tool]) => [tool, null, "error", "CANCELLED"]),
    );
    // Refused before any lookup: no contract was resolved, no proposal made, no operation opened, nothing sent.
    expect(await db.proposal.count({ where: { runId } })).toBe(0);
    expect(await db.operation.count({ where: { runId } })).toBe(0);
    expect(await crmState()).toEqual(crmBefore);
  });
});

describe("proposals of a deleted agent's run", () => {
  it("stay readable and listed; approving is refused with agent_deleted, refusing closes the card", async () => {
    const setup = await crmAgent();
    const runId = await setup.run();
    const preview = await previewAddress(setup, runId, "ADDR-2");
    const proposalId = preview.evidence.proposal.id as string;
    const before = await getProposal(tenant, proposalId);
    expect(before.status).toBe("pending");
    await deleteAgent(setup.agentId);

    // The proposal itself is unchanged; only its requester now says the agent is gone.
    expect(await getProposal(tenant, proposalId)).toEqual({
      ...before,
      requester: { ...before.requester, agent: null },
    });
    const listed = await api(`/v1/proposals?run=${runId}`, { as: asKey() });
    expect(listed.status).toBe(200);
    expect(listed.body.data.map((p: { id: string }) => p.id)).toEqual([proposalId]);
    const inbox = await api(`/v1/proposals?status=pending&order=expires_at&limit=100`, {
      as: await tenant.as("approver"),
    });
    expect(inbox.body.data.map((p: { id: string }) => p.id)).toContain(proposalId);

    const approval = await approve(tenant, proposalId, "approver");
    expect(approval.status).toBe(409);
    expect(approval.body.error).toMatchObject({ code: "agent_deleted", reason: { run: runId } });
    const db = await testDb();
    expect(await db.decision.count({ where: { proposalId } })).toBe(0);
    expect((await getProposal(tenant, proposalId)).status).toBe("pending");

    const refusal = await refuse(
      tenant,
      proposalId,
      "approver",
      "Agent supprimé : plus personne pour valider cette adresse.",
    );
    expect(refusal.status).toBe(200);
    expect(refusal.body.data).toMatchObject({ id: proposalId, status: "refused", decisions: [{ decision: "refuse" }] });
  });

  it("an approved proposal is never committed once the agent is deleted: CANCELLED, nothing written anywhere", async () => {
    const setup = await crmAgent();
    const runId = await setup.run();
    const proposal = await approvedAddressChange(setup, runId, "ADDR-2");
    await deleteAgent(setup.agentId);
    const crmBefore = await crmState();

    const envelope = await commit(setup, runId, "commit_address_change", proposal.id);
    expect(envelope).toMatchObject({ ok: false, error: { code: "CANCELLED", retryable: false } });

    expect(await crmState()).toEqual(crmBefore);
    expect(await crmCustomer("C-1842")).toMatchObject({ version: 17, shipping_address: ADDR_1 });
    const db = await testDb();
    expect(await db.operation.count({ where: { runId } })).toBe(0);
    expect(await getProposal(tenant, proposal.id)).toMatchObject({
      status: "approved",
      operation: null,
      consumed_at: null,
    });
  });

  it("an agent deleted while the commit waits for the target's lock: refused under the lock, nothing sent", async () => {
    const setup = await crmAgent();
    const runId = await setup.run();
    const proposal = await approvedAddressChange(setup, runId, "ADDR-2");
    const { acquireWriteLock, releaseWriteLock } = await import("@/lib/limits/write-lock");
    const target = {
      organizationId: tenant.organizationId,
      type: proposal.target.type as string,
      id: proposal.target.id as string,
    };
    expect(await acquireWriteLock(target, "test-holder", 60_000)).toBe(true);
    const db = await testDb();
    let pending: Promise<any> | undefined;
    try {
      pending = commit(setup, runId, "commit_address_change", proposal.id);
      // The commit passed the dispatcher and opened its operation: it now waits for the lock.
      await until(
        async () => (await db.operation.count({ where: { runId, status: "queued" } })) === 1,
        "the commit to wait for the lock",
      );
      await deleteAgent(setup.agentId);
    } finally {
      await releaseWriteLock(target, "test-holder");
    }
    const envelope = await pending;
    expect(envelope).toMatchObject({ ok: false, error: { code: "CANCELLED", proposal_id: proposal.id } });
    expect(await crmCustomer("C-1842")).toMatchObject({ version: 17, shipping_address: ADDR_1 });
    expect((await crmState()).operations).toHaveLength(0);
    const operations = await api(`/v1/operations?run=${runId}`, { as: asKey() });
    expect(operations.body.data).toHaveLength(1);
    expect(operations.body.data[0]).toMatchObject({
      status: "failed",
      proposal: proposal.id,
      run: runId,
      error: { code: "CANCELLED" },
    });
    expect((await getProposal(tenant, proposal.id)).status).toBe("approved");
  });

  it("operations and consumed proposals committed before the deletion stay readable", async () => {
    const setup = await crmAgent();
    const runId = await setup.run();
    const proposal = await approvedAddressChange(setup, runId, "ADDR-2");
    const committed = await commit(setup, runId, "commit_address_change", proposal.id);
    expect(committed.ok).toBe(true);
    const operationId = committed.evidence.operation as string;
    const operationBefore = (await api(`/v1/operations/${operationId}`, { as: asKey() })).body.data;
    await deleteAgent(setup.agentId);

    const operation = await api(`/v1/operations/${operationId}`, { as: asKey() });
    expect(operation.status).toBe(200);
    expect(operation.body.data).toEqual(operationBefore);
    expect(operation.body.data).toMatchObject({ status: "succeeded", run: runId, proposal: proposal.id });
    const listed = await api(`/v1/operations?run=${runId}`, { as: asKey() });
    expect(listed.body.data.map((o: { id: string }) => o.id)).toEqual([operationId]);
    expect(await getProposal(tenant, proposal.id)).toMatchObject({
      status: "consumed",
      operation: operationId,
      run: runId,
    });
    // The write stays done, once.
    expect(await crmCustomer("C-1842")).toMatchObject({ version: 18 });
  });
});

describe("another organization", () => {
  it("gets 404 for the deleted agent's run, its steps, tool calls, proposals and operations", async () => {
    const setup = await crmAgent();
    const runId = await setup.run();
    const proposal = await approvedAddressChange(setup, runId, "ADDR-2");
    const committed = await commit(setup, runId, "commit_address_change", proposal.id);
    const pendingId = (await previewAddress(setup, runId, "ADDR-3")).evidence.proposal.id as string;
    await deleteAgent(setup.agentId);

    const other = await createTenant("pro");
    const key = { key: other.key };
    const approver = await other.as("approver");
    const attempts = [
      await api(`/v1/runs/${runId}`, { as: key }),
      await api(`/v1/runs/${runId}/steps`, { as: key }),
      await api(`/v1/runs/${runId}/tool_calls`, {
        json: { tool: "calculate", arguments: { expression: "1 + 1" } },
        as: key,
      }),
      await api(`/v1/runs/${runId}/cancel`, { method: "POST", as: key }),
      await api(`/v1/proposals/${pendingId}`, { as: key }),
      await api(`/v1/proposals/${pendingId}/approve`, { json: { arguments_sha256: "0".repeat(64) }, as: approver }),
      await api(`/v1/proposals/${pendingId}/refuse`, { json: { reason: "not ours" }, as: approver }),
      await api(`/v1/operations/${committed.evidence.operation}`, { as: key }),
    ];
    for (const response of attempts) {
      expect(response.status).toBe(404);
      expect(response.body.error.code).toBe("not_found");
    }
    expect((await api(`/v1/runs?limit=100`, { as: key })).body.data.map((r: { id: string }) => r.id)).not.toContain(
      runId,
    );
    expect((await api(`/v1/proposals?run=${runId}`, { as: key })).body.data).toEqual([]);
    expect((await api(`/v1/operations?run=${runId}`, { as: key })).body.data).toEqual([]);
    // Nothing the other organization tried reached the run.
    expect((await storedSteps(runId)).map((s) => s.errorCode)).not.toContain("CANCELLED");
    expect((await getProposal(tenant, pendingId)).status).toBe("pending");
  });
});
