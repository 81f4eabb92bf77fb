import { beforeAll, beforeEach, describe, expect, it } from "vitest";
import { canonicalSha256 } from "@/lib/canonical";
import { callTool, createAgent, createRun } from "./dispatch-fixtures";
import { api, createTenant, crmState, testDb, type Tenant } from "./helpers";
import {
  approve,
  commit,
  crmCustomer,
  getProposal,
  previewAddress,
  refuse,
  resetCrm,
  setupCrm,
  type CrmSetup,
} from "./proposals-helpers";

// Canonical proposals and approvals by people: what a preview
// stores, who may decide, with which hash, and the typed refusals of late or
// unentitled decisions — with every decision recorded.

let setup: CrmSetup;
let other: Tenant;

beforeAll(async () => {
  setup = await setupCrm(await createTenant("pro"));
  other = await createTenant("pro");
});
beforeEach(resetCrm);

async function pendingProposal(runId?: string, address = "ADDR-2") {
  const run = runId ?? (await setup.run());
  const preview = await previewAddress(setup, run, address);
  return { run, preview, proposal: await getProposal(setup.tenant, preview.evidence.proposal.id) };
}

describe("a preview becomes a canonical proposal", () => {
  it("stores the service's canonical change, bound to the target version by its hash", async () => {
    const { run, preview, proposal } = await pendingProposal();
    expect(preview.evidence.proposal).toMatchObject({
      id: expect.stringMatching(/^prop_[0-9a-z]{26}$/),
      status: "pending",
      created: true,
      rule: "writes",
      approvals_required: 1,
    });
    const args = { customer_id: "C-1842", destination: { kind: "saved", address_id: "ADDR-2" }, expected_version: 17 };
    expect(proposal).toMatchObject({
      run,
      tool: `${setup.crm.key("commit_address_change")}@1`,
      arguments: args,
      arguments_sha256: canonicalSha256(args),
      target: { type: "customer", id: "C-1842", version: 17 },
      effect: expect.stringContaining("C-1842"),
      changes: [
        {
          field: "shipping_address",
          before: { line1: "8 rue des Lilas", city: "Paris" },
          after: { line1: "24 quai Saint-Antoine", city: "Lyon" },
        },
      ],
      recipients: null,
      amount: null,
      environment: "production",
      records_affected: 1,
      irreversible: false,
      policy: {
        rule: "writes",
        policy_version: 1,
        decision: "require_approval",
        approvals_required: 1,
        approver_roles: ["owner", "admin", "approver"],
      },
      approvals: { count: 0, required: 1 },
      status: "pending",
      decisions: [],
      operation: null,
    });
    const ttl = new Date(proposal.expires_at).getTime() - new Date(proposal.created_at).getTime();
    expect(ttl).toBe(3600 * 1000);
  });

  it("does not make a second card for a second preview of the same change in the same run", async () => {
    const { run, proposal } = await pendingProposal();
    const again = await previewAddress(setup, run, "ADDR-2");
    expect(again.evidence.proposal).toMatchObject({ id: proposal.id, created: false });
    expect(await (await testDb()).proposal.count({ where: { runId: run } })).toBe(1);
  });

  it("supersedes the run's pending card when the agent previews another change of the same record", async () => {
    const { run, proposal } = await pendingProposal();
    const next = await previewAddress(setup, run, "ADDR-3");
    expect(next.evidence.proposal.id).not.toBe(proposal.id);
    expect((await getProposal(setup.tenant, proposal.id)).status).toBe("superseded");
    expect((await approve(setup.tenant, proposal.id, "approver")).body.error.code).toBe("proposal_superseded");
  });

  it("makes no proposal in a read run: it could never commit one", async () => {
    const agent = await createAgent(setup.tenant, { tools: [setup.crm.key("preview_address_change")] });
    const { run } = await createRun(setup.tenant, { agent: agent.id, capabilities: "read" });
    const preview = await callTool(setup.tenant, run.id, setup.crm.key("preview_address_change"), {
      customer_id: "C-1842",
      destination: { kind: "saved", address_id: "ADDR-2" },
    });
    expect(preview.ok).toBe(true);
    expect(preview.evidence.proposal).toBeUndefined();
    expect(await (await testDb()).proposal.count({ where: { runId: run.id } })).toBe(0);
  });
});

describe("approvals by people only", () => {
  it("refuses an API key with 403, whatever its scopes, and records nothing", async () => {
    const { proposal } = await pendingProposal();
    const byKey = await api(`/v1/proposals/${proposal.id}/approve`, {
      json: { arguments_sha256: proposal.arguments_sha256 },
      as: { key: setup.tenant.key },
    });
    expect(byKey.status).toBe(403);
    expect(byKey.body.error.code).toBe("forbidden");
    const refusal = await api(`/v1/proposals/${proposal.id}/refuse`, {
      json: { reason: "non" },
      as: { key: setup.tenant.key },
    });
    expect(refusal.status).toBe(403);
    expect(await (await testDb()).decision.count({ where: { proposalId: proposal.id } })).toBe(0);
  });

  it("records who approved which hash against which target version, and when", async () => {
    const { proposal } = await pendingProposal();
    const response = await approve(setup.tenant, proposal.id, "approver");
    expect(response.status).toBe(200);
    expect(response.body.data).toMatchObject({ status: "approved", approvals: { count: 1, required: 1 } });
    const [decision] = await (await testDb()).decision.findMany({ where: { proposalId: proposal.id } });
    const approver = await (
      await testDb()
    ).member.findUniqueOrThrow({ where: { email: setup.tenant.emails.approver } });
    expect(decision).toMatchObject({
      memberId: approver.id,
      decision: "approve",
      argumentsSha256: proposal.arguments_sha256,
      targetVersion: 17,
      reason: null,
    });
    expect(response.body.data.decisions[0]).toMatchObject({
      member: { id: approver.id, name: approver.name },
      decision: "approve",
      target_version: 17,
      created_at: expect.any(String),
    });
  });

  it("refuses a hash other than the one stored: the approver must have seen these arguments", async () => {
    const { proposal } = await pendingProposal();
    const response = await approve(
      setup.tenant,
      proposal.id,
      "approver",
      canonicalSha256({ customer_id: "C-1842", expected_version: 17 }),
    );
    expect(response.status).toBe(409);
    expect(response.body.error).toMatchObject({
      code: "arguments_hash_mismatch",
      reason: { arguments_sha256: proposal.arguments_sha256 },
    });
    expect((await getProposal(setup.tenant, proposal.id)).status).toBe("pending");
    const malformed = await api(`/v1/proposals/${proposal.id}/approve`, {
      json: { arguments_sha256: "abc" },
      as: await setup.tenant.as("approver"),
    });
    expect(malformed.status).toBe(400);
    expect(malformed.body.error.errors[0].field).toBe("arguments_sha256");
  });

  it("refuses approvers the rule does not name, with a typed error", async () => {
    const { proposal } = await pendingProposal();
    for (const role of ["viewer", "developer"] as const) {
      const response = await approve(setup.tenant, proposal.id, role);
      expect(response.status).toBe(403);
      expect(response.body.error).toMatchObject({ code: "approver_not_authorized", reason: { rule: "writes", role } });
    }
    expect(await (await testDb()).decision.count({ where: { proposalId: proposal.id } })).toBe(0);
  });

  it("does not let the person who drove the run approve their own write", async () => {
    const run = await setup.run("admin");
    const { proposal } = await pendingProposal(run);
    const admin = await (await testDb()).member.findUniqueOrThrow({ where: { email: setup.tenant.emails.admin } });
    expect(proposal.requested_by).toMatchObject({ id: admin.id });
    const own = await approve(setup.tenant, proposal.id, "admin");
    expect(own.status).toBe(403);
    expect(own.body.error.code).toBe("self_approval_forbidden");
    expect((await approve(setup.tenant, proposal.id, "approver")).body.data.status).toBe("approved");
  });

  it("treats the creator of the run's API key as the requester", async () => {
    const admin = await (await testDb()).member.findUniqueOrThrow({ where: { email: setup.tenant.emails.admin } });
    const created = await api("/v1/api_keys", {
      json: { name: "admin's agent", scopes: ["runs:write", "runs:read", "agents:read"] },
      as: await setup.tenant.as("admin"),
    });
    const adminKey = created.body.data.secret as string;
    const response = await api("/v1/runs", {
      json: { agent: setup.agentId, capabilities: "read_write" },
      as: { key: adminKey },
    });
    const preview = await previewAddress(setup, response.body.data.id, "ADDR-3", "C-1842", { key: adminKey });
    expect((await getProposal(setup.tenant, preview.evidence.proposal.id)).requested_by.id).toBe(admin.id);
    expect((await approve(setup.tenant, preview.evidence.proposal.id, "admin")).body.error.code).toBe(
      "self_approval_forbidden",
    );
  });

  it("needs a reason to refuse, keeps it for the agent, and refuses late decisions", async () => {
    const { run, proposal } = await pendingProposal();
    const empty = await refuse(setup.tenant, proposal.id, "approver", "  ");
    expect(empty.status).toBe(400);
    expect(empty.body.error.errors[0].field).toBe("reason");
    const refused = await refuse(setup.tenant, proposal.id, "approver", "Le client n'a rien demandé.");
    expect(refused.body.data).toMatchObject({
      status: "refused",
      decisions: [{ decision: "refuse", reason: "Le client n'a rien demandé." }],
    });
    const late = await approve(setup.tenant, proposal.id, "admin");
    expect(late.status).toBe(409);
    expect(late.body.error).toMatchObject({ code: "proposal_not_pending", reason: { status: "refused" } });
    const envelope = await commit(setup, run, "commit_address_change", proposal.id);
    expect(envelope.error).toMatchObject({ code: "PROPOSAL_NOT_APPROVED", proposal_id: proposal.id });
    expect(envelope.error.message).toContain("Le client n'a rien demandé.");
    expect(await crmCustomer("C-1842")).toMatchObject({ version: 17 });
  });

  it("refuses the same person deciding twice", async () => {
    const refund = await refundProposal(12_000);
    expect((await approve(setup.tenant, refund.id, "admin")).status).toBe(200);
    const twice = await approve(setup.tenant, refund.id, "admin");
    expect(twice.status).toBe(409);
    expect(twice.body.error.code).toBe("already_decided");
  });
});

async function refundProposal(valueMinor: number): Promise<Record<string, any>> {
  const run = await setup.run();
  const envelope = await callTool(setup.tenant, run, setup.crm.key("refund_payment"), {
    payment_id: "PAY-9004",
    amount: { value_minor: valueMinor, currency: "CHF" },
    reason: "Colis abîmé",
  });
  expect(envelope.error).toMatchObject({ code: "APPROVAL_REQUIRED", proposal_id: expect.stringMatching(/^prop_/) });
  return { ...(await getProposal(setup.tenant, envelope.error.proposal_id)), runId: run };
}

describe("quorum", () => {
  it("needs two distinct administrators for a large payment, and refuses an approver", async () => {
    const refund = await refundProposal(12_000);
    expect(refund).toMatchObject({
      amount: { value_minor: 12_000, currency: "CHF" },
      irreversible: true,
      policy: { rule: "large-payments", approvals_required: 2, approver_roles: ["owner", "admin"] },
    });
    const approver = await approve(setup.tenant, refund.id, "approver");
    expect(approver.status).toBe(403);
    expect(approver.body.error.code).toBe("approver_not_authorized");
    const first = await approve(setup.tenant, refund.id, "admin");
    expect(first.body.data).toMatchObject({ status: "pending", approvals: { count: 1, required: 2 } });
    // Not enough yet: nothing can be committed.
    const early = await commit(setup, refund.runId, "refund_payment", refund.id);
    expect(early.error.code).toBe("PROPOSAL_NOT_APPROVED");
    const second = await approve(setup.tenant, refund.id, "owner");
    expect(second.body.data).toMatchObject({ status: "approved", approvals: { count: 2, required: 2 } });
    const done = await commit(setup, refund.runId, "refund_payment", refund.id);
    expect(done).toMatchObject({
      ok: true,
      result: { payment_id: "PAY-9004", amount: { value_minor: 12_000, currency: "CHF" } },
    });
    const payment = (await crmState()).payments.find((p: { payment_id: string }) => p.payment_id === "PAY-9004");
    expect(payment.refunded_total).toEqual({ value_minor: 12_000, currency: "CHF" });
  });

  it("checks the approvers' rights again at commit: a demoted approver no longer counts", async () => {
    const run = await setup.run();
    const preview = await previewAddress(setup, run, "ADDR-2");
    await approve(setup.tenant, preview.evidence.proposal.id, "approver");
    const db = await testDb();
    await db.member.update({ where: { email: setup.tenant.emails.approver }, data: { role: "viewer" } });
    try {
      const envelope = await commit(setup, run, "commit_address_change", preview.evidence.proposal.id);
      expect(envelope.error).toMatchObject({ code: "APPROVER_NOT_AUTHORIZED" });
      expect(await crmCustomer("C-1842")).toMatchObject({ version: 17 });
      expect((await crmState()).operations).toHaveLength(0);
    } finally {
      await db.member.update({ where: { email: setup.tenant.emails.approver }, data: { role: "approver" } });
    }
  });
});

describe("expiry", () => {
  async function expire(id: string) {
    await (await testDb()).proposal.update({ where: { id }, data: { expiresAt: new Date(Date.now() - 1000) } });
  }

  it("refuses a decision on an expired proposal and writes the expiry down", async () => {
    const { proposal } = await pendingProposal();
    await expire(proposal.id);
    const late = await approve(setup.tenant, proposal.id, "approver");
    expect(late.status).toBe(409);
    expect(late.body.error.code).toBe("proposal_expired");
    expect((await (await testDb()).proposal.findUniqueOrThrow({ where: { id: proposal.id } })).status).toBe("expired");
  });

  it("refuses to commit an approval that expired: PROPOSAL_EXPIRED, nothing written, then a new card", async () => {
    const { run, proposal } = await pendingProposal();
    await approve(setup.tenant, proposal.id, "approver");
    await expire(proposal.id);
    const envelope = await commit(setup, run, "commit_address_change", proposal.id);
    expect(envelope.error).toMatchObject({ code: "PROPOSAL_EXPIRED", proposal_id: proposal.id });
    expect(await crmCustomer("C-1842")).toMatchObject({ version: 17 });
    expect((await crmState()).operations).toHaveLength(0);
    expect((await getProposal(setup.tenant, proposal.id)).status).toBe("expired");
    const again = await previewAddress(setup, run, "ADDR-2");
    expect(again.evidence.proposal).toMatchObject({ created: true, status: "pending" });
    expect(again.evidence.proposal.id).not.toBe(proposal.id);
  });
});

describe("listing and reading", () => {
  it("lists pending proposals soonest expiry first, filters by run and status, pages, counts", async () => {
    const run = await setup.run();
    const a = (await previewAddress(setup, run, "ADDR-2", "C-1842")).evidence.proposal.id;
    const b = (await previewAddress(setup, run, "ADDR-5", "C-2001")).evidence.proposal.id;
    await (await testDb()).proposal.update({ where: { id: b }, data: { expiresAt: new Date(Date.now() + 60_000) } });
    const list = await api(`/v1/proposals?status=pending&run=${run}&order=expires_at`, {
      as: { key: setup.tenant.key },
    });
    expect(list.body.data.map((p: { id: string }) => p.id)).toEqual([b, a]);
    const first = await api(`/v1/proposals?run=${run}&limit=1`, { as: { key: setup.tenant.key } });
    expect(first.body.data).toHaveLength(1);
    const second = await api(`/v1/proposals?run=${run}&limit=1&cursor=${first.body.next_cursor}`, {
      as: { key: setup.tenant.key },
    });
    expect(second.body.data[0].id).not.toBe(first.body.data[0].id);
    const counts = await api("/v1/proposals/counts", { as: await setup.tenant.as("viewer") });
    expect(counts.body.data.pending).toBeGreaterThanOrEqual(2);
    const bad = await api("/v1/proposals?status=maybe", { as: { key: setup.tenant.key } });
    expect(bad.status).toBe(400);
  });

  it("answers 404 for another organization's proposal, on read and on decision", async () => {
    const { proposal } = await pendingProposal();
    expect((await api(`/v1/proposals/${proposal.id}`, { as: { key: other.key } })).status).toBe(404);
    const decision = await api(`/v1/proposals/${proposal.id}/approve`, {
      json: { arguments_sha256: proposal.arguments_sha256 },
      as: await other.as("owner"),
    });
    expect(decision.status).toBe(404);
    expect((await api("/v1/proposals", { as: { key: other.key } })).body.data).toEqual([]);
  });
});
