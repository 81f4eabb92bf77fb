import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { callTool } from "./dispatch-fixtures";
import { api, createTenant, startSuiteInstance, testDb, until } from "./helpers";
import {
  ADDR_1,
  ADDR_2,
  approvedAddressChange,
  commit,
  crmCustomer,
  crmOperationsOf,
  getProposal,
  resetCrm,
  setupCrm,
  type CrmSetup,
} from "./proposals-helpers";
import { startApp } from "./server";
import { crmHeldWrites, customerLock, holdWrites, operationOf } from "./write-proofs-helpers";

// Every ambiguous path of a commit (the fixed recovery sequence): the write
// reached CRM Acme and Guichet does not know what became of it. Each case
// proves the next step asks the service's status instead of sending again, and
// checks CRM Acme's stored state. CRM Acme's `hold_writes` fault keeps the
// write waiting inside the service, so "sent but not answered" is a state the
// test reaches, not a race it hopes to win.

let setup: CrmSetup;
let second: Awaited<ReturnType<typeof startApp>>;

beforeAll(async () => {
  setup = await setupCrm(await createTenant("pro"));
  // An app instance of this file's own, on the same database: the one that crashes.
  second = await startSuiteInstance();
});
afterAll(async () => second?.stop());
beforeEach(resetCrm);
afterEach(() => holdWrites(false));

describe("an attempt that crashed between sending the write and recording its answer", () => {
  it("leaves the operation running; the next attempt asks the status and never sends twice", async () => {
    const run = await setup.run();
    const proposal = await approvedAddressChange(setup, run, "ADDR-2");
    await holdWrites(true);
    const lost = callTool(
      setup.tenant,
      run,
      setup.crm.key("commit_address_change"),
      { proposal_id: proposal.id },
      second.baseUrl,
    ).catch((error: unknown) => error);
    await until(async () => (await crmHeldWrites()) === 1, "the write to reach CRM Acme");
    await second.crash();
    expect(await lost).toBeInstanceOf(Error);
    expect(await operationOf(proposal.id)).toMatchObject({ status: "running" });
    // The service applies the write it had received; nobody is left to hear the answer.
    await holdWrites(false);
    await until(async () => (await crmOperationsOf(run)).length === 1, "the held write to land");
    expect(await crmCustomer("C-1842")).toMatchObject({ version: 18, shipping_address: ADDR_2 });
    // The crashed holder's lease on the target's lock runs out (it is bounded so that a crash cannot block a record forever).
    await (
      await testDb()
    ).writeLock.updateMany({
      where: { target: customerLock(setup.tenant.organizationId, "C-1842") },
      data: { expiresAt: new Date(Date.now() - 1_000) },
    });
    const envelope = await commit(setup, run, "commit_address_change", proposal.id);
    expect(envelope).toMatchObject({
      ok: true,
      result: { previous_version: 17, new_version: 18 },
      evidence: { recovered_by: "status", proposal_id: proposal.id },
    });
    expect(await crmOperationsOf(run)).toHaveLength(1);
    expect(await crmCustomer("C-1842")).toMatchObject({ version: 18 });
    expect(await operationOf(proposal.id)).toMatchObject({ status: "succeeded" });
    expect((await getProposal(setup.tenant, proposal.id)).status).toBe("consumed");
  });
});

describe("a write that times out, the status says not_found, and the write lands afterwards", () => {
  it("is OUTCOME_UNKNOWN (never a failure), and the operator's resolve records what the service shows", async () => {
    const run = await setup.run();
    const proposal = await approvedAddressChange(setup, run, "ADDR-2");
    await holdWrites(true);
    // The run's deadline bounds the attempt: the write times out while CRM Acme holds it.
    await (await testDb()).run.update({ where: { id: run }, data: { expiresAt: new Date(Date.now() + 4_000) } });
    const envelope = await commit(setup, run, "commit_address_change", proposal.id);
    expect(envelope.error).toMatchObject({ code: "OUTCOME_UNKNOWN", proposal_id: proposal.id });
    expect(await crmHeldWrites()).toBe(1);
    const [unknown] = (await api(`/v1/operations?status=unknown&run=${run}`, { as: { key: setup.tenant.key } })).body
      .data;
    expect(unknown.error.trail).toEqual([
      expect.objectContaining({ step: "commit", outcome: expect.stringContaining("TIMEOUT") }),
      expect.objectContaining({ step: "status", outcome: "the service has nothing recorded under the key yet" }),
    ]);
    expect(await crmCustomer("C-1842")).toMatchObject({ version: 17, shipping_address: ADDR_1 });
    await holdWrites(false);
    await until(async () => (await crmOperationsOf(run)).length === 1, "the held write to land");
    expect(await crmCustomer("C-1842")).toMatchObject({ version: 18, shipping_address: ADDR_2 });
    const resolved = await api(`/v1/operations/${unknown.id}/resolve`, {
      json: { outcome: "succeeded", reason: "CRM : adresse de Lyon, version 18." },
      as: await setup.tenant.as("admin"),
    });
    expect(resolved.status).toBe(200);
    expect(resolved.body.data).toMatchObject({
      status: "succeeded",
      resolution: { reason: "CRM : adresse de Lyon, version 18." },
    });
    expect(await getProposal(setup.tenant, proposal.id)).toMatchObject({ status: "consumed", operation: unknown.id });
    expect(await crmOperationsOf(run)).toHaveLength(1);
  });
});

describe("a run cancelled while its commit is in flight", () => {
  it("does not cut a write its contract declares not interruptible: the answer is awaited and recorded, nothing is sent again", async () => {
    const run = await setup.run();
    const proposal = await approvedAddressChange(setup, run, "ADDR-2");
    await holdWrites(true);
    const pending = commit(setup, run, "commit_address_change", proposal.id);
    await until(async () => (await crmHeldWrites()) === 1, "the write to reach CRM Acme");
    const cancelled = await api(`/v1/runs/${run}/cancel`, { method: "POST", as: { key: setup.tenant.key } });
    expect(cancelled.body.cancellation).toMatchObject({ stopped_calls: 0, uninterruptible_calls: 1 });
    await holdWrites(false);
    const envelope = await pending;
    expect(envelope).toMatchObject({ ok: true, evidence: { proposal_id: proposal.id } });
    expect(envelope.evidence.recovered_by).toBeUndefined();
    expect(await operationOf(proposal.id)).toMatchObject({ status: "succeeded" });
    expect(await getProposal(setup.tenant, proposal.id)).toMatchObject({ status: "consumed" });
    const retry = await commit(setup, run, "commit_address_change", proposal.id);
    expect(retry.error.code).toBe("CANCELLED");
    expect(await crmOperationsOf(run)).toHaveLength(1);
    expect(await crmCustomer("C-1842")).toMatchObject({ version: 18, shipping_address: ADDR_2 });
  });
});
