import { afterEach, describe, expect, it } from "vitest";
import { callTool, createAgent, createRun } from "./dispatch-fixtures";
import { api, crmFaults, crmState, testDb } from "./helpers";
import {
  ADDR_1,
  ADDR_2,
  ADDR_3,
  approvedAddressChange,
  callCrmDirectly,
  commit,
  commitKey,
  crmCustomer,
  crmOperationsOf,
  crmSuite,
  getProposal,
  previewAddress,
  touchCustomer,
} from "./proposals-helpers";

// Commit exactly once: every scenario asserts on what
// CRM Acme stored, not on a sentence Guichet returned.

const setup = crmSuite();
afterEach(() => crmFaults({ cut_after_commit: false, malformed_success: false, status_down: false, slow_ms: 0 }));

async function operationRow(id: string) {
  return (await testDb()).operation.findUniqueOrThrow({ where: { id } });
}

describe("an approved address change", () => {
  it("commits the stored proposal once and returns its evidence", async () => {
    const run = await setup.run();
    const proposal = await approvedAddressChange(setup, run, "ADDR-2");
    const envelope = await commit(setup, run, "commit_address_change", proposal.id);
    expect(envelope).toMatchObject({
      ok: true,
      result: {
        customer_id: "C-1842",
        previous_version: 17,
        new_version: 18,
        changed_fields: ["shipping_address"],
        committed_at: expect.any(String),
      },
      evidence: {
        proposal_id: proposal.id,
        operation: expect.stringMatching(/^op_[0-9a-z]{26}$/),
        idempotency_key: commitKey(setup, run, proposal.id),
      },
    });
    const customer = await crmCustomer("C-1842");
    expect(customer).toMatchObject({ version: 18, shipping_address: ADDR_2 });
    expect(await crmOperationsOf(run)).toHaveLength(1);
    expect(await getProposal(setup.tenant, proposal.id)).toMatchObject({
      status: "consumed",
      operation: envelope.evidence.operation,
      consumed_at: expect.any(String),
    });
    const operation = await api(`/v1/operations/${envelope.evidence.operation}`, { as: { key: setup.tenant.key } });
    expect(operation.body.data).toMatchObject({
      status: "succeeded",
      proposal: proposal.id,
      arguments_sha256: proposal.arguments_sha256,
      result: { previous_version: 17, new_version: 18 },
    });
  });

  it("takes only {proposal_id}: arguments from the caller are refused and nothing is written", async () => {
    const run = await setup.run();
    const proposal = await approvedAddressChange(setup, run, "ADDR-2");
    const attempts = [
      { proposal_id: proposal.id, destination: { kind: "saved", address_id: "ADDR-3" } },
      { proposal_id: proposal.id, idempotency_key: "agent-picked-key-1" },
      {
        customer_id: "C-1842",
        destination: { kind: "saved", address_id: "ADDR-3" },
        expected_version: 17,
        idempotency_key: "agent-picked-key-2",
      },
    ];
    for (const args of attempts) {
      const envelope = await callTool(setup.tenant, run, setup.crm.key("commit_address_change"), args);
      expect(envelope.error.code).toBe("INVALID_ARGUMENTS");
    }
    expect(await crmCustomer("C-1842")).toMatchObject({ version: 17, shipping_address: ADDR_1 });
    expect((await crmState()).operations).toHaveLength(0);
    expect((await getProposal(setup.tenant, proposal.id)).status).toBe("approved");
  });

  it("executes the displayed effect even when every agent-controlled copy changed after approval", async () => {
    const run = await setup.run();
    const proposal = await approvedAddressChange(setup, run, "ADDR-2");
    const displayed = proposal.changes[0].after;
    // The agent previews something else, then tries to smuggle other arguments into the commit.
    const other = await previewAddress(setup, run, "ADDR-3");
    expect(other.evidence.proposal.id).not.toBe(proposal.id);
    await callTool(setup.tenant, run, setup.crm.key("commit_address_change"), {
      proposal_id: proposal.id,
      destination: { kind: "saved", address_id: "ADDR-3" },
    });
    const envelope = await commit(setup, run, "commit_address_change", proposal.id);
    expect(envelope.ok).toBe(true);
    expect((await crmCustomer("C-1842")).shipping_address).toEqual(displayed);
    expect(displayed).toEqual(ADDR_2);
    // The other preview is still only a pending card: it never executed.
    expect((await getProposal(setup.tenant, other.evidence.proposal.id)).status).toBe("pending");
  });
});

describe("which proposal a run may commit", () => {
  it("answers PROPOSAL_NOT_FOUND for an unknown id, another run's proposal, or another tool's", async () => {
    const [run, otherRun] = [await setup.run(), await setup.run()];
    const proposal = await approvedAddressChange(setup, run, "ADDR-2");
    const unknown = await commit(setup, run, "commit_address_change", "prop_00000000000000000000000000");
    expect(unknown.error).toMatchObject({ code: "PROPOSAL_NOT_FOUND", field: "/proposal_id" });
    expect((await commit(setup, otherRun, "commit_address_change", proposal.id)).error.code).toBe("PROPOSAL_NOT_FOUND");
    expect((await commit(setup, run, "send_email", proposal.id)).error.code).toBe("PROPOSAL_NOT_FOUND");
    expect(await crmCustomer("C-1842")).toMatchObject({ version: 17 });
    expect((await crmState()).operations).toHaveLength(0);
  });
});

describe("the target changed after approval", () => {
  it("GIVEN a proposal on version 17 AND the customer now at 18, WHEN it commits THEN no address changes, VERSION_CONFLICT, the proposal stays unconsumed", async () => {
    const run = await setup.run();
    const proposal = await approvedAddressChange(setup, run, "ADDR-2");
    expect(proposal.target).toEqual({ type: "customer", id: "C-1842", version: 17 });
    expect(await touchCustomer("C-1842")).toBe(18);
    const envelope = await commit(setup, run, "commit_address_change", proposal.id);
    expect(envelope.ok).toBe(false);
    expect(envelope.error).toMatchObject({ code: "VERSION_CONFLICT", retryable: false, proposal_id: proposal.id });
    expect(await crmCustomer("C-1842")).toMatchObject({ version: 18, shipping_address: ADDR_1 });
    const stored = await getProposal(setup.tenant, proposal.id);
    expect(stored).toMatchObject({ status: "approved", operation: null, consumed_at: null });
    const [crmOp] = await crmOperationsOf(run);
    expect(crmOp).toMatchObject({ status: "failed" });
    // The agent reads again and proposes again: a new proposal on version 18.
    const again = await previewAddress(setup, run, "ADDR-2");
    expect(again.evidence.proposal).toMatchObject({ created: true, status: "pending" });
    expect((await getProposal(setup.tenant, again.evidence.proposal.id)).target.version).toBe(18);
  });

  it("lets one of two approved proposals on the same version win; the other writes nothing", async () => {
    const [runA, runB] = [await setup.run(), await setup.run()];
    const a = await approvedAddressChange(setup, runA, "ADDR-2");
    const b = await approvedAddressChange(setup, runB, "ADDR-3");
    const [ea, eb] = await Promise.all([
      commit(setup, runA, "commit_address_change", a.id),
      commit(setup, runB, "commit_address_change", b.id),
    ]);
    const outcomes = [ea, eb].map((e) => (e.ok ? "ok" : e.error.code)).sort();
    expect(outcomes).toEqual(["VERSION_CONFLICT", "ok"]);
    const winner = ea.ok ? a : b;
    const customer = await crmCustomer("C-1842");
    expect(customer.version).toBe(18);
    expect(customer.shipping_address).toEqual(winner.changes[0].after);
    const statuses = [
      (await getProposal(setup.tenant, a.id)).status,
      (await getProposal(setup.tenant, b.id)).status,
    ].sort();
    expect(statuses).toEqual(["approved", "consumed"]);
  });
});

describe("idempotency", () => {
  it("answers a repeated commit with the stored result: one write", async () => {
    const run = await setup.run();
    const proposal = await approvedAddressChange(setup, run, "ADDR-2");
    const first = await commit(setup, run, "commit_address_change", proposal.id);
    const second = await commit(setup, run, "commit_address_change", proposal.id);
    expect(second).toMatchObject({
      ok: true,
      result: first.result,
      evidence: { operation: first.evidence.operation, replayed: true },
    });
    expect(await crmCustomer("C-1842")).toMatchObject({ version: 18 });
    expect(await crmOperationsOf(run)).toHaveLength(1);
  });

  it("refuses the key reused with other arguments: IDEMPOTENCY_KEY_REUSED, no second write", async () => {
    const run = await setup.run();
    const proposal = await approvedAddressChange(setup, run, "ADDR-2");
    const key = commitKey(setup, run, proposal.id);
    // Another client of the service got to the same key first, with other arguments.
    const direct = await callCrmDirectly("commit_address_change", {
      customer_id: "C-1842",
      destination: { kind: "saved", address_id: "ADDR-3" },
      expected_version: 17,
      idempotency_key: key,
    });
    expect(direct.isError).toBeFalsy();
    const envelope = await commit(setup, run, "commit_address_change", proposal.id);
    expect(envelope.error).toMatchObject({ code: "IDEMPOTENCY_KEY_REUSED" });
    expect(await crmCustomer("C-1842")).toMatchObject({ version: 18, shipping_address: ADDR_3 });
    expect(await crmOperationsOf(run)).toHaveLength(1);
    expect((await getProposal(setup.tenant, proposal.id)).status).toBe("approved");
  });

  it("turns 50 concurrent commits of one proposal into exactly one effect", async () => {
    const run = await setup.run();
    const proposal = await approvedAddressChange(setup, run, "ADDR-2");
    const envelopes = await Promise.all(
      Array.from({ length: 50 }, () => commit(setup, run, "commit_address_change", proposal.id)),
    );
    expect(envelopes.filter((e) => e.ok)).toHaveLength(50);
    expect(new Set(envelopes.map((e) => e.evidence.operation)).size).toBe(1);
    expect(envelopes.filter((e) => !e.evidence.replayed)).toHaveLength(1);
    expect(await crmCustomer("C-1842")).toMatchObject({ version: 18, shipping_address: ADDR_2 });
    expect(await crmOperationsOf(run)).toHaveLength(1);
    expect(await (await testDb()).operation.count({ where: { proposalId: proposal.id } })).toBe(1);
  });
});

describe("unknown outcomes (the fixed recovery sequence)", () => {
  it("recovers the stored success by idempotency key after the connection was cut: no second write", async () => {
    // The run does not carry the status tool: Guichet asks it on its own account.
    const agent = await createAgent(setup.tenant, {
      tools: [setup.crm.key("preview_address_change"), setup.crm.key("commit_address_change")],
    });
    const run = (await createRun(setup.tenant, { agent: agent.id, capabilities: "read_write" })).run.id as string;
    const proposal = await approvedAddressChange(setup, run, "ADDR-2");
    await crmFaults({ cut_after_commit: true });
    const envelope = await commit(setup, run, "commit_address_change", proposal.id);
    expect(envelope).toMatchObject({
      ok: true,
      result: { previous_version: 17, new_version: 18 },
      evidence: { recovered_by: "status" },
    });
    expect(await crmCustomer("C-1842")).toMatchObject({ version: 18, shipping_address: ADDR_2 });
    expect(await crmOperationsOf(run)).toHaveLength(1);
    expect((await getProposal(setup.tenant, proposal.id)).status).toBe("consumed");
    expect((await operationRow(envelope.evidence.operation)).status).toBe("succeeded");
  });

  it("returns the recorded refusal when the cut hid a VERSION_CONFLICT", async () => {
    const run = await setup.run();
    const proposal = await approvedAddressChange(setup, run, "ADDR-2");
    await touchCustomer("C-1842");
    await crmFaults({ cut_after_commit: true });
    const envelope = await commit(setup, run, "commit_address_change", proposal.id);
    expect(envelope.error).toMatchObject({ code: "VERSION_CONFLICT", proposal_id: proposal.id });
    expect(await crmCustomer("C-1842")).toMatchObject({ version: 18, shipping_address: ADDR_1 });
    expect((await getProposal(setup.tenant, proposal.id)).status).toBe("approved");
  });

  it("with the status tool down: OUTCOME_UNKNOWN, the run suspended, an escalation — never a success", async () => {
    const run = await setup.run();
    const proposal = await approvedAddressChange(setup, run, "ADDR-2");
    await crmFaults({ cut_after_commit: true, status_down: true });
    const envelope = await commit(setup, run, "commit_address_change", proposal.id);
    expect(envelope.ok).toBe(false);
    expect(envelope.error).toMatchObject({ code: "OUTCOME_UNKNOWN", proposal_id: proposal.id });
    // The write did happen at the service; Guichet did not claim it.
    expect(await crmCustomer("C-1842")).toMatchObject({ version: 18 });
    expect((await getProposal(setup.tenant, proposal.id)).status).toBe("approved");
    const escalations = await api("/v1/operations?status=unknown", { as: { key: setup.tenant.key } });
    const [operation] = escalations.body.data.filter((op: { run: string }) => op.run === run);
    expect(operation).toMatchObject({
      status: "unknown",
      proposal: proposal.id,
      error: { code: "OUTCOME_UNKNOWN", trail: [{ step: "commit" }, { step: "status" }] },
    });
    const runState = await api(`/v1/runs/${run}`, { as: { key: setup.tenant.key } });
    expect(runState.body.data.status).toBe("suspended");
    // A suspended run takes no further call, and a retry of the commit sends nothing.
    await crmFaults({ cut_after_commit: false, status_down: false });
    const retry = await commit(setup, run, "commit_address_change", proposal.id);
    expect(retry.error.code).toBe("OUTCOME_UNKNOWN");
    expect(await crmOperationsOf(run)).toHaveLength(1);
  });

  it("does not take a malformed success body for a success", async () => {
    const run = await setup.run();
    const proposal = await approvedAddressChange(setup, run, "ADDR-2");
    await crmFaults({ malformed_success: true });
    const envelope = await commit(setup, run, "commit_address_change", proposal.id);
    expect(envelope.ok).toBe(false);
    expect(envelope.error.code).toBe("OUTCOME_UNKNOWN");
    expect(JSON.stringify(envelope)).not.toContain("unexpected_field");
    expect((await getProposal(setup.tenant, proposal.id)).status).toBe("approved");
    const [operation] = (await api(`/v1/operations?status=unknown&run=${run}`, { as: { key: setup.tenant.key } })).body
      .data;
    expect(operation.error.trail[0].outcome).toContain("output schema");
    // The service did write (only its answer was malformed): Guichet neither claims it nor sends it again.
    expect(await crmCustomer("C-1842")).toMatchObject({ version: 18 });
    expect((await crmOperationsOf(run)).map((op) => op.status)).toEqual(["succeeded"]);
    expect((await api(`/v1/runs/${run}`, { as: { key: setup.tenant.key } })).body.data.status).toBe("suspended");
    await crmFaults({ malformed_success: false });
    expect((await commit(setup, run, "commit_address_change", proposal.id)).error.code).toBe("OUTCOME_UNKNOWN");
    expect(await crmOperationsOf(run)).toHaveLength(1);
  });
});
