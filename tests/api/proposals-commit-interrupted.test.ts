import { describe, expect, it } from "vitest";
import { testDb } from "./helpers";
import {
  ADDR_2,
  approvedAddressChange,
  callCrmDirectly,
  commit,
  commitKey,
  crmCustomer,
  crmOperationsOf,
  crmSuite,
  getProposal,
} from "./proposals-helpers";

// A commit whose sender died after sending the write (its operation is left
// `running`) and whose proposal expired before anyone asked again: the
// service's status settles it — never a refusal that leaves it running for
// good, never a second send. Found by the chaos harness (npm run chaos): an
// instance killed mid-commit, the client's retries refused RATE_LIMITED while
// the dead sender's lock lapsed, then PROPOSAL_EXPIRED.

const setup = crmSuite();

/** The state a dead sender leaves: the operation claimed (running), the approval lapsed since. */
async function interruptedCommit(run: string, proposal: Record<string, any>, applied: boolean) {
  const db = await testDb();
  const { newId } = await import("@/lib/ids");
  const key = commitKey(setup, run, proposal.id);
  const operation = await db.operation.create({
    data: {
      id: newId("op"),
      organizationId: setup.tenant.organizationId,
      runId: run,
      proposalId: proposal.id,
      tool: `${setup.crm.key("commit_address_change")}@1`,
      idempotencyKey: key,
      argumentsSha256: proposal.arguments_sha256,
      status: "running",
    },
  });
  if (applied) {
    // The write reached the service under Guichet's key before the sender died.
    const sent = await callCrmDirectly("commit_address_change", {
      customer_id: "C-1842",
      destination: { kind: "saved", address_id: "ADDR-2" },
      expected_version: 17,
      idempotency_key: key,
    });
    expect(sent.isError).toBeFalsy();
  }
  await db.proposal.update({ where: { id: proposal.id }, data: { expiresAt: new Date(Date.now() - 1000) } });
  return operation;
}

describe("a commit interrupted after sending, asked again once its proposal expired", () => {
  it("is settled by the service's recorded success: the write counted once, the proposal consumed", async () => {
    const run = await setup.run();
    const proposal = await approvedAddressChange(setup, run, "ADDR-2");
    const operation = await interruptedCommit(run, proposal, true);
    const envelope = await commit(setup, run, "commit_address_change", proposal.id);
    expect(envelope).toMatchObject({
      ok: true,
      result: { previous_version: 17, new_version: 18 },
      evidence: { operation: operation.id, recovered_by: "status" },
    });
    const db = await testDb();
    expect(await db.operation.findUniqueOrThrow({ where: { id: operation.id } })).toMatchObject({
      status: "succeeded",
    });
    expect((await getProposal(setup.tenant, proposal.id)).status).toBe("consumed");
    expect(await crmCustomer("C-1842")).toMatchObject({ version: 18, shipping_address: ADDR_2 });
    expect(await crmOperationsOf(run)).toHaveLength(1);
  });

  it("is escalated as unknown when the service has no record of it: nothing sent again", async () => {
    const run = await setup.run();
    const proposal = await approvedAddressChange(setup, run, "ADDR-2");
    const operation = await interruptedCommit(run, proposal, false);
    const envelope = await commit(setup, run, "commit_address_change", proposal.id);
    expect(envelope.error).toMatchObject({ code: "OUTCOME_UNKNOWN", proposal_id: proposal.id });
    const db = await testDb();
    expect(await db.operation.findUniqueOrThrow({ where: { id: operation.id } })).toMatchObject({ status: "unknown" });
    expect(await crmOperationsOf(run)).toEqual([]);
    expect(await crmCustomer("C-1842")).toMatchObject({ version: 17 });
  });
});
