import { afterEach, describe, expect, it } from "vitest";
import { callTool } from "./dispatch-fixtures";
import { crmState, testDb, until } from "./helpers";
import {
  ADDR_1,
  ADDR_2,
  approve,
  approvedAddressChange,
  commit,
  crmCustomer,
  crmOperationsOf,
  crmSuite,
  getProposal,
} from "./proposals-helpers";
import { crmHeldWrites, customerLock, holdWrites, operationOf } from "./write-proofs-helpers";

// What the commit re-checks, proven by changing the stored state under it:
// the arguments hash (against the proposal and against each approval), and the
// approval's expiry while the commit waits for the target's lock, while the
// write is in flight, and after a commit was turned away as rate-limited.
// Every case asserts on CRM Acme's own stored state.

const setup = crmSuite();
afterEach(() => holdWrites(false));

const past = () => new Date(Date.now() - 1_000);

describe("the arguments hash is checked again at commit", () => {
  it("refuses an approved proposal whose stored arguments were changed in the database: nothing reaches CRM Acme", async () => {
    const run = await setup.run();
    const proposal = await approvedAddressChange(setup, run, "ADDR-2");
    const db = await testDb();
    const stored = await db.proposal.findUniqueOrThrow({ where: { id: proposal.id } });
    const tampered = {
      ...(stored.arguments as Record<string, unknown>),
      destination: { kind: "saved", address_id: "ADDR-3" },
    };
    await db.proposal.update({ where: { id: proposal.id }, data: { arguments: tampered } });
    const envelope = await commit(setup, run, "commit_address_change", proposal.id);
    expect(envelope.ok).toBe(false);
    expect(envelope.error).toMatchObject({ code: "PROPOSAL_NOT_APPROVED", proposal_id: proposal.id });
    expect(envelope.error.message).toContain("no longer hash");
    expect(await crmCustomer("C-1842")).toMatchObject({ version: 17, shipping_address: ADDR_1 });
    expect((await crmState()).operations).toHaveLength(0);
    expect(await operationOf(proposal.id)).toBeNull();
    expect((await getProposal(setup.tenant, proposal.id)).status).toBe("approved");
  });

  it("stops counting an approval whose recorded arguments_sha256 was changed: the quorum is no longer met, nothing is written", async () => {
    const run = await setup.run();
    const invoices = Array.from({ length: 10 }, (_, i) => `INV-1842-${String(i + 1).padStart(3, "0")}`);
    const asked = await callTool(setup.tenant, run, setup.crm.key("suspend_invoice_delivery"), {
      customer_id: "C-1842",
      invoice_ids: invoices,
    });
    const id = asked.error.proposal_id as string;
    expect((await approve(setup.tenant, id, "approver")).status).toBe(200);
    expect((await approve(setup.tenant, id, "admin")).body.data).toMatchObject({
      status: "approved",
      policy: { approvals_required: 2 },
    });
    const db = await testDb();
    const admin = await db.member.findFirstOrThrow({
      where: { organizationId: setup.tenant.organizationId, role: "admin" },
    });
    await db.decision.updateMany({
      where: { proposalId: id, memberId: admin.id },
      data: { argumentsSha256: "0".repeat(64) },
    });
    const envelope = await commit(setup, run, "suspend_invoice_delivery", id);
    expect(envelope.error).toMatchObject({ code: "APPROVER_NOT_AUTHORIZED", proposal_id: id });
    expect(envelope.error.message).toContain("Only 1 of the 2 approvals");
    expect(
      (await crmState()).invoices.filter((i: { delivery_suspended: boolean }) => i.delivery_suspended),
    ).toHaveLength(0);
    expect(await crmOperationsOf(run)).toHaveLength(0);
    expect((await getProposal(setup.tenant, id)).status).toBe("approved");
  });
});

describe("an approval that expires during the commit", () => {
  it("while the commit waits for the target's write lock: refused under the lock, the operation records why, CRM Acme unchanged", async () => {
    const run = await setup.run();
    const proposal = await approvedAddressChange(setup, run, "ADDR-2");
    const db = await testDb();
    // Another write on the same customer holds the lock.
    await db.writeLock.create({
      data: {
        target: customerLock(setup.tenant.organizationId, "C-1842"),
        holder: "another-write",
        expiresAt: new Date(Date.now() + 600_000),
      },
    });
    const pending = commit(setup, run, "commit_address_change", proposal.id);
    await until(
      async () => (await operationOf(proposal.id))?.status === "queued",
      "the commit to queue behind the lock",
    );
    await db.proposal.update({ where: { id: proposal.id }, data: { expiresAt: past() } });
    await db.writeLock.delete({ where: { target: customerLock(setup.tenant.organizationId, "C-1842") } });
    const envelope = await pending;
    expect(envelope.error).toMatchObject({ code: "PROPOSAL_EXPIRED", proposal_id: proposal.id });
    expect(await crmCustomer("C-1842")).toMatchObject({ version: 17, shipping_address: ADDR_1 });
    expect(await crmOperationsOf(run)).toHaveLength(0);
    expect(await operationOf(proposal.id)).toMatchObject({ status: "failed", error: { code: "PROPOSAL_EXPIRED" } });
    expect((await getProposal(setup.tenant, proposal.id)).status).toBe("expired");
  });

  it("while the write is in flight: the write was sent approved, so it is recorded and consumes the proposal — never a silent success", async () => {
    const run = await setup.run();
    const proposal = await approvedAddressChange(setup, run, "ADDR-2");
    await holdWrites(true);
    const pending = commit(setup, run, "commit_address_change", proposal.id);
    await until(async () => (await crmHeldWrites()) === 1, "the write to reach CRM Acme");
    expect(await operationOf(proposal.id)).toMatchObject({ status: "running" });
    // The clock runs out during the call, and a reader writes the expiry down.
    await (
      await testDb()
    ).proposal.update({ where: { id: proposal.id }, data: { expiresAt: past(), status: "expired" } });
    await holdWrites(false);
    const envelope = await pending;
    expect(envelope).toMatchObject({
      ok: true,
      result: { previous_version: 17, new_version: 18 },
      evidence: { proposal_id: proposal.id },
    });
    expect(await crmCustomer("C-1842")).toMatchObject({ version: 18, shipping_address: ADDR_2 });
    expect(await crmOperationsOf(run)).toHaveLength(1);
    const operation = await operationOf(proposal.id);
    expect(operation).toMatchObject({ id: envelope.evidence.operation, status: "succeeded" });
    expect(await getProposal(setup.tenant, proposal.id)).toMatchObject({
      status: "consumed",
      operation: operation!.id,
    });
  });

  it("after a commit was turned away as rate-limited: the retry is refused as expired and the waiting operation records it", async () => {
    const run = await setup.run();
    const proposal = await approvedAddressChange(setup, run, "ADDR-2");
    const db = await testDb();
    const lock = customerLock(setup.tenant.organizationId, "C-1842");
    await db.writeLock.create({
      data: { target: lock, holder: "another-write", expiresAt: new Date(Date.now() + 600_000) },
    });
    // The run's deadline bounds the wait for the lock: a near one turns the commit away quickly.
    await db.run.update({ where: { id: run }, data: { expiresAt: new Date(Date.now() + 4_000) } });
    const limited = await commit(setup, run, "commit_address_change", proposal.id);
    expect(limited.error).toMatchObject({
      code: "RATE_LIMITED",
      retryable: true,
      retry_after_ms: expect.any(Number),
      proposal_id: proposal.id,
    });
    expect(await operationOf(proposal.id)).toMatchObject({ status: "queued" });
    await db.run.update({ where: { id: run }, data: { expiresAt: new Date(Date.now() + 3_600_000) } });
    await db.proposal.update({ where: { id: proposal.id }, data: { expiresAt: past() } });
    await db.writeLock.delete({ where: { target: lock } });
    const retry = await commit(setup, run, "commit_address_change", proposal.id);
    expect(retry.error).toMatchObject({ code: "PROPOSAL_EXPIRED", proposal_id: proposal.id });
    expect(await crmCustomer("C-1842")).toMatchObject({ version: 17, shipping_address: ADDR_1 });
    expect(await crmOperationsOf(run)).toHaveLength(0);
    expect(await operationOf(proposal.id)).toMatchObject({ status: "failed", error: { code: "PROPOSAL_EXPIRED" } });
  });
});
