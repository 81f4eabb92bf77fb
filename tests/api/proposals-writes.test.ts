import { describe, expect, it } from "vitest";
import { callTool } from "./dispatch-fixtures";
import { api, createTenant, crmState, testDb } from "./helpers";
import { approve, commit, crmOperationsOf, crmSuite, getProposal, setupCrm } from "./proposals-helpers";

// Writes without a preview tool (send_email, refund_payment,
// suspend_invoice_delivery): Guichet's own code describes the validated
// arguments — recipients, amount, records, irreversibility — the policy table
// decides, and only an approved proposal reaches CRM Acme.

const setup = crmSuite();

const email = {
  to: ["camille.martin@example.com", "compta@example.com"],
  subject: "Votre remboursement",
  body: "Bonjour, votre remboursement est parti.",
  customer_id: "C-1842",
};

describe("an e-mail", () => {
  it("waits for approval, shows its recipients, and is sent once approved — exactly once", async () => {
    const run = await setup.run();
    const asked = await callTool(setup.tenant, run, setup.crm.key("send_email"), email);
    expect(asked.error).toMatchObject({
      code: "APPROVAL_REQUIRED",
      retryable: true,
      proposal_id: expect.stringMatching(/^prop_/),
    });
    expect((await crmState()).outbox).toHaveLength(0);
    const proposal = await getProposal(setup.tenant, asked.error.proposal_id);
    expect(proposal).toMatchObject({
      recipients: email.to,
      irreversible: true,
      action: "message",
      records_affected: 1,
      environment: "production",
      policy: { rule: "external-messages", approvals_required: 1 },
      effect: expect.stringContaining("camille.martin@example.com"),
    });
    expect(proposal.arguments).toEqual(email);
    // Asking again with the same candidate arguments finds the same card.
    const again = await callTool(setup.tenant, run, setup.crm.key("send_email"), email);
    expect(again.error.proposal_id).toBe(proposal.id);
    expect((await approve(setup.tenant, proposal.id, "approver")).body.data.status).toBe("approved");
    const sent = await commit(setup, run, "send_email", proposal.id);
    expect(sent).toMatchObject({ ok: true, result: { recipients: email.to, message_id: expect.any(String) } });
    await commit(setup, run, "send_email", proposal.id);
    const { outbox } = await crmState();
    expect(outbox).toHaveLength(1);
    expect(outbox[0]).toMatchObject({ recipients: email.to, subject: email.subject, body: email.body });
    // The same e-mail asked for again in this run is not a new card: it was sent.
    const third = await callTool(setup.tenant, run, setup.crm.key("send_email"), email);
    expect(third.error).toMatchObject({ code: "PROPOSAL_CONSUMED", proposal_id: proposal.id });
  });

  it("never lets the agent choose the idempotency key", async () => {
    const run = await setup.run();
    const envelope = await callTool(setup.tenant, run, setup.crm.key("send_email"), {
      ...email,
      idempotency_key: "agent-chosen-key-01",
    });
    expect(envelope.error).toMatchObject({ code: "INVALID_ARGUMENTS", field: "/idempotency_key" });
    expect(await (await testDb()).proposal.count({ where: { runId: run } })).toBe(0);
  });
});

describe("a bulk change", () => {
  const invoices = Array.from({ length: 10 }, (_, i) => `INV-1842-${String(i + 1).padStart(3, "0")}`);

  it("counts the records and needs two people from ten invoices", async () => {
    const run = await setup.run();
    const asked = await callTool(setup.tenant, run, setup.crm.key("suspend_invoice_delivery"), {
      customer_id: "C-1842",
      invoice_ids: [...invoices].reverse(),
    });
    const proposal = await getProposal(setup.tenant, asked.error.proposal_id);
    expect(proposal).toMatchObject({
      records_affected: 10,
      irreversible: false,
      policy: { rule: "large-bulk", approvals_required: 2 },
    });
    expect(proposal.arguments.invoice_ids).toEqual(invoices);
    expect(proposal.changes).toHaveLength(10);
    await approve(setup.tenant, proposal.id, "approver");
    expect((await commit(setup, run, "suspend_invoice_delivery", proposal.id)).error.code).toBe(
      "PROPOSAL_NOT_APPROVED",
    );
    expect(
      (await crmState()).invoices.filter((i: { delivery_suspended: boolean }) => i.delivery_suspended),
    ).toHaveLength(0);
    await approve(setup.tenant, proposal.id, "admin");
    const done = await commit(setup, run, "suspend_invoice_delivery", proposal.id);
    expect(done).toMatchObject({ ok: true, result: { suspended_count: 10 } });
    const suspended = (await crmState()).invoices.filter((i: { delivery_suspended: boolean }) => i.delivery_suspended);
    expect(suspended.map((i: { invoice_id: string }) => i.invoice_id).sort()).toEqual(invoices);
  });
});

describe("the policy table decides, not the prompt", () => {
  async function withPolicy(rules: unknown[]) {
    const tenant = await createTenant("pro");
    const local = await setupCrm(tenant);
    const current = await api("/v1/policies", { as: { key: tenant.key } });
    const put = await api("/v1/policies", {
      method: "PUT",
      json: { rules: [...rules, ...current.body.data.rules], base_version: current.body.data.version },
      as: await tenant.as("admin"),
    });
    if (put.status !== 200) throw new Error(`policy: HTTP ${put.status} ${JSON.stringify(put.body)}`);
    return local;
  }

  it("refuses a write a `deny` row names: POLICY_DENIED, nothing proposed, nothing sent", async () => {
    const local = await withPolicy([
      {
        id: "no-refunds",
        match: { tools: ["mcp_*_refund_payment"] },
        decision: "deny",
        description: "Pas de remboursement par agent.",
      },
    ]);
    const run = await local.run();
    const envelope = await callTool(local.tenant, run, local.crm.key("refund_payment"), {
      payment_id: "PAY-9002",
      amount: { value_minor: 100, currency: "EUR" },
    });
    expect(envelope.error).toMatchObject({ code: "POLICY_DENIED" });
    expect(envelope.error.message).toContain("no-refunds");
    expect(await (await testDb()).proposal.count({ where: { runId: run } })).toBe(0);
    expect((await crmState()).refunds.filter((r: { payment_id: string }) => r.payment_id === "PAY-9002")).toHaveLength(
      0,
    );
  });

  it("runs a write directly only through an explicit `allow` row naming it — still once, with Guichet's key", async () => {
    const local = await withPolicy([
      { id: "crm-invoice-suspension", match: { tools: ["mcp_*_suspend_invoice_delivery"] }, decision: "allow" },
    ]);
    const run = await local.run();
    const args = { customer_id: "C-2001", invoice_ids: ["INV-2001-001"] };
    const envelope = await callTool(local.tenant, run, local.crm.key("suspend_invoice_delivery"), args);
    expect(envelope).toMatchObject({
      ok: true,
      result: { suspended_count: 1 },
      evidence: { operation: expect.stringMatching(/^op_/), proposal_id: expect.stringMatching(/^prop_/) },
    });
    expect(await getProposal(local.tenant, envelope.evidence.proposal_id)).toMatchObject({
      status: "consumed",
      policy: { rule: "crm-invoice-suspension", decision: "allow", approvals_required: 0 },
    });
    const [crmOp] = await crmOperationsOf(run);
    expect(crmOp).toMatchObject({ status: "succeeded", idempotency_key: envelope.evidence.idempotency_key });
    expect(
      (await crmState()).invoices.find((i: { invoice_id: string }) => i.invoice_id === "INV-2001-001")
        .delivery_suspended,
    ).toBe(true);
  });
});
