import { beforeAll, beforeEach, describe, expect, it } from "vitest";
import { callTool } from "./dispatch-fixtures";
import { api, createTenant, crmState, signIn, testDb, type Caller } from "./helpers";
import { approve, commit, getProposal, previewAddress, resetCrm, setupCrm, type CrmSetup } from "./proposals-helpers";

// A run is driven by the principal that opened it and by no one else: a tool
// call or a tool output from another API key or another signed-in person of
// the same organization is refused with 403 run_not_yours before anything is
// stored. What the opener's calls leave (steps, proposals) names who made
// them, and the four-eyes rule and the quorum count that person — so nobody
// can ask in a colleague's run and then approve their own write.

let setup: CrmSetup;

beforeAll(async () => void (setup = await setupCrm(await createTenant("pro"))));
beforeEach(resetCrm);

async function memberId(email: string): Promise<string> {
  return (await (await testDb()).member.findUniqueOrThrow({ where: { email } })).id;
}

/** A key the signed-in admin creates for himself: its requests are his. */
async function adminKey(): Promise<{ key: string; id: string }> {
  const created = await api("/v1/api_keys", {
    json: { name: `admin's own ${Date.now()}`, scopes: ["runs:write", "runs:read", "agents:read"] },
    as: await setup.tenant.as("admin"),
  });
  expect(created.status).toBe(201);
  return { key: created.body.data.secret as string, id: created.body.data.id as string };
}

async function runAs(caller: Caller): Promise<string> {
  const response = await api("/v1/runs", {
    json: { agent: setup.agentId, capabilities: "read_write" },
    as: caller,
  });
  expect(response.status).toBe(201);
  return response.body.data.id as string;
}

function previewBody() {
  return {
    tool: setup.crm.key("preview_address_change"),
    arguments: { customer_id: "C-1842", destination: { kind: "saved", address_id: "ADDR-2" } },
  };
}

async function storedOf(runId: string) {
  const db = await testDb();
  return {
    steps: await db.step.count({ where: { runId } }),
    proposals: await db.proposal.count({ where: { runId } }),
  };
}

describe("only the run's opener drives it", () => {
  it("refuses another API key's preview in a key's run with 403 run_not_yours, storing no step and no proposal", async () => {
    const run = await runAs({ key: setup.tenant.key });
    const intruder = await adminKey();
    const refused = await api(`/v1/runs/${run}/tool_calls`, { json: previewBody(), as: { key: intruder.key } });
    expect(refused.status).toBe(403);
    expect(refused.body.error.code).toBe("run_not_yours");
    expect(await storedOf(run)).toEqual({ steps: 0, proposals: 0 });
    // The run is untouched: its opener still drives it.
    const own = await callTool(setup.tenant, run, previewBody().tool, previewBody().arguments);
    expect(own.ok).toBe(true);
    expect(await storedOf(run)).toEqual({ steps: 1, proposals: 1 });
  });

  it("refuses a signed-in admin's tool call in a developer's run, and the key of the organization too", async () => {
    const developer = await setup.tenant.as("developer");
    const run = await runAs(developer);
    for (const caller of [await setup.tenant.as("admin"), { key: setup.tenant.key }]) {
      const refused = await api(`/v1/runs/${run}/tool_calls`, { json: previewBody(), as: caller });
      expect(refused.status).toBe(403);
      expect(refused.body.error.code).toBe("run_not_yours");
    }
    expect(await storedOf(run)).toEqual({ steps: 0, proposals: 0 });
    const own = await api(`/v1/runs/${run}/tool_calls`, { json: previewBody(), as: developer });
    expect(own.status).toBe(200);
    expect(own.body.ok).toBe(true);
  });

  it("refuses another principal's tool outputs before saying whether the run waits for any", async () => {
    const run = await runAs({ key: setup.tenant.key });
    const body = { tool_outputs: [{ tool_call_id: "call_1", output: "42" }] };
    const intruder = await api(`/v1/runs/${run}/tool_outputs`, {
      json: body,
      as: await setup.tenant.as("admin"),
    });
    expect(intruder.status).toBe(403);
    expect(intruder.body.error.code).toBe("run_not_yours");
    // The opener hears the run's own state: it waits for no tool output.
    const opener = await api(`/v1/runs/${run}/tool_outputs`, { json: body, as: { key: setup.tenant.key } });
    expect(opener.status).toBe(409);
    expect(opener.body.error.code).toBe("run_not_waiting");
    expect((await (await testDb()).run.findUniqueOrThrow({ where: { id: run } })).status).toBe("active");
  });

  it("answers another organization's run with 404, as before", async () => {
    const run = await runAs({ key: setup.tenant.key });
    const other = await createTenant("pro");
    const response = await api(`/v1/runs/${run}/tool_calls`, { json: previewBody(), as: { key: other.key } });
    expect(response.status).toBe(404);
    expect(response.body.error.code).toBe("not_found");
    expect(await storedOf(run)).toEqual({ steps: 0, proposals: 0 });
  });
});

describe("what a call leaves names who made it", () => {
  it("records the key on the step and the proposal, and the key's creator as the requester", async () => {
    const own = await adminKey();
    const run = await runAs({ key: own.key });
    const preview = await previewAddress(setup, run, "ADDR-2", "C-1842", { key: own.key });
    const db = await testDb();
    const admin = await memberId(setup.tenant.emails.admin);
    expect(await db.step.findFirstOrThrow({ where: { runId: run } })).toMatchObject({
      apiKeyId: own.id,
      memberId: null,
    });
    expect(await db.proposal.findUniqueOrThrow({ where: { id: preview.evidence.proposal.id } })).toMatchObject({
      requestedBy: admin,
      requestedByApiKeyId: own.id,
    });
    const proposal = await getProposal(setup.tenant, preview.evidence.proposal.id);
    expect(proposal.requested_by).toMatchObject({ id: admin });
    expect(proposal.requester).toMatchObject({ source: "api_key", api_key: { id: own.id }, member: null });
    const self = await approve(setup.tenant, proposal.id, "admin");
    expect(self.status).toBe(403);
    expect(self.body.error.code).toBe("self_approval_forbidden");
    expect(await db.decision.count({ where: { proposalId: proposal.id } })).toBe(0);
  });

  it("records the signed-in member on the step and the proposal; the approval's audit event names the approver", async () => {
    const run = await setup.run("developer");
    const preview = await previewAddress(setup, run, "ADDR-2");
    const db = await testDb();
    const developer = await memberId(setup.tenant.emails.developer);
    expect(await db.step.findFirstOrThrow({ where: { runId: run } })).toMatchObject({
      apiKeyId: null,
      memberId: developer,
    });
    const id = preview.evidence.proposal.id as string;
    expect(await db.proposal.findUniqueOrThrow({ where: { id } })).toMatchObject({
      requestedBy: developer,
      requestedByApiKeyId: null,
    });
    expect((await approve(setup.tenant, id, "approver")).status).toBe(200);
    expect(
      await db.auditEvent.findFirstOrThrow({ where: { action: "proposal.approved", targetId: id } }),
    ).toMatchObject({ actorType: "member", actorId: await memberId(setup.tenant.emails.approver) });
    const committed = await commit(setup, run, "commit_address_change", id);
    expect(committed.ok).toBe(true);
    expect(await db.step.findMany({ where: { runId: run }, select: { memberId: true } })).toEqual([
      { memberId: developer },
      { memberId: developer },
    ]);
  });
});

describe("the quorum counts the person who asked", () => {
  it("a large refund needs two approvals: its requester supplies none, two other administrators do", async () => {
    const db = await testDb();
    const { hashPassword } = await import("@/lib/auth/passwords");
    const { newId } = await import("@/lib/ids");
    const email = `admin2@${setup.tenant.slug}.test`;
    await db.member.create({
      data: {
        id: newId("mem"),
        organizationId: setup.tenant.organizationId,
        email,
        name: `second admin ${setup.tenant.slug}`,
        role: "admin",
        passwordHash: await hashPassword("guichet-demo"),
      },
    });
    const admin = await setup.tenant.as("admin");
    const refund = {
      tool: setup.crm.key("refund_payment"),
      arguments: { payment_id: "PAY-9004", amount: { value_minor: 12_000, currency: "CHF" }, reason: "Colis abîmé" },
    };
    // The admin cannot ask in a developer's run (the proposal would have named the developer).
    const developerRun = await runAs(await setup.tenant.as("developer"));
    const smuggled = await api(`/v1/runs/${developerRun}/tool_calls`, { json: refund, as: admin });
    expect(smuggled.status).toBe(403);
    expect(smuggled.body.error.code).toBe("run_not_yours");
    expect(await storedOf(developerRun)).toEqual({ steps: 0, proposals: 0 });

    // In his own run he asks, and so cannot approve.
    const run = await runAs(admin);
    const asked = await api(`/v1/runs/${run}/tool_calls`, { json: refund, as: admin });
    expect(asked.body.error).toMatchObject({ code: "APPROVAL_REQUIRED" });
    const id = asked.body.error.proposal_id as string;
    expect(await getProposal(setup.tenant, id)).toMatchObject({
      requested_by: { id: await memberId(setup.tenant.emails.admin) },
      policy: { rule: "large-payments", approvals_required: 2 },
    });
    const self = await approve(setup.tenant, id, admin);
    expect(self.status).toBe(403);
    expect(self.body.error.code).toBe("self_approval_forbidden");
    expect(await db.decision.count({ where: { proposalId: id } })).toBe(0);

    const first = await approve(setup.tenant, id, "owner");
    expect(first.body.data).toMatchObject({ status: "pending", approvals: { count: 1, required: 2 } });
    const second = await approve(setup.tenant, id, await signIn(email));
    expect(second.body.data).toMatchObject({ status: "approved", approvals: { count: 2, required: 2 } });
    const done = await api(`/v1/runs/${run}/tool_calls`, {
      json: { tool: refund.tool, arguments: { proposal_id: id } },
      as: admin,
    });
    expect(done.body).toMatchObject({ ok: true, result: { payment_id: "PAY-9004" } });
    const payment = (await crmState()).payments.find((p: { payment_id: string }) => p.payment_id === "PAY-9004");
    expect(payment.refunded_total).toEqual({ value_minor: 12_000, currency: "CHF" });
  });
});
