import { beforeAll, beforeEach, describe, expect, it } from "vitest";
import { api, createTenant, crmFaults, testDb, type Tenant } from "./helpers";
import {
  approvedAddressChange,
  commit,
  commitKey,
  crmCustomer,
  crmOperationsOf,
  getProposal,
  resetCrm,
  setupCrm,
  type CrmSetup,
} from "./proposals-helpers";

// Operations: the escalation of an unknown outcome, its
// resolution by a signed-in operator, and cancellation's three answers.

let setup: CrmSetup;
let other: Tenant;

beforeAll(async () => {
  setup = await setupCrm(await createTenant("pro"));
  other = await createTenant("pro");
});
beforeEach(async () => {
  await resetCrm();
});

async function unknownOutcome() {
  const run = await setup.run();
  const proposal = await approvedAddressChange(setup, run, "ADDR-2");
  await crmFaults({ cut_after_commit: true, status_down: true });
  try {
    const envelope = await commit(setup, run, "commit_address_change", proposal.id);
    expect(envelope.error.code).toBe("OUTCOME_UNKNOWN");
  } finally {
    await crmFaults({ cut_after_commit: false, status_down: false });
  }
  const [operation] = (await api(`/v1/operations?status=unknown&run=${run}`, { as: { key: setup.tenant.key } })).body
    .data;
  return { run, proposal, operation };
}

describe("resolving an unknown outcome", () => {
  it("lets an admin who checked the service say it happened: the proposal is consumed, the run resumes", async () => {
    const { run, proposal, operation } = await unknownOutcome();
    expect(await crmCustomer("C-1842")).toMatchObject({ version: 18 });
    const resolved = await api(`/v1/operations/${operation.id}/resolve`, {
      json: { outcome: "succeeded", reason: "Adresse vérifiée dans le CRM : Lyon, version 18." },
      as: await setup.tenant.as("admin"),
    });
    expect(resolved.status).toBe(200);
    expect(resolved.body.data).toMatchObject({
      status: "succeeded",
      resolution: { reason: "Adresse vérifiée dans le CRM : Lyon, version 18.", at: expect.any(String) },
    });
    expect(await getProposal(setup.tenant, proposal.id)).toMatchObject({ status: "consumed", operation: operation.id });
    expect((await api(`/v1/runs/${run}`, { as: { key: setup.tenant.key } })).body.data.status).toBe("active");
    // Resolved once: a second verdict is refused, and the commit replays the operator's outcome without writing.
    const again = await api(`/v1/operations/${operation.id}/resolve`, {
      json: { outcome: "failed", reason: "non" },
      as: await setup.tenant.as("owner"),
    });
    expect(again.status).toBe(409);
    expect(again.body.error.code).toBe("operation_not_unknown");
    expect(await crmOperationsOf(run)).toHaveLength(1);
  });

  it("lets an operator say it did not happen: the proposal stays unconsumed and a new preview replaces it", async () => {
    const { run, proposal, operation } = await unknownOutcome();
    const resolved = await api(`/v1/operations/${operation.id}/resolve`, {
      json: { outcome: "failed", reason: "Rien dans le CRM." },
      as: await setup.tenant.as("owner"),
    });
    expect(resolved.body.data.status).toBe("failed");
    expect((await getProposal(setup.tenant, proposal.id)).status).toBe("approved");
    const retry = await commit(setup, run, "commit_address_change", proposal.id);
    expect(retry.error.message).toContain("Rien dans le CRM.");
  });

  it("is for signed-in owners and admins, with a reason; never an API key", async () => {
    const { operation } = await unknownOutcome();
    const byKey = await api(`/v1/operations/${operation.id}/resolve`, {
      json: { outcome: "succeeded", reason: "ok" },
      as: { key: setup.tenant.key },
    });
    expect(byKey.status).toBe(403);
    const byApprover = await api(`/v1/operations/${operation.id}/resolve`, {
      json: { outcome: "succeeded", reason: "ok" },
      as: await setup.tenant.as("approver"),
    });
    expect(byApprover.status).toBe(403);
    const noReason = await api(`/v1/operations/${operation.id}/resolve`, {
      json: { outcome: "succeeded", reason: " " },
      as: await setup.tenant.as("admin"),
    });
    expect(noReason.status).toBe(400);
    expect(noReason.body.error.errors[0].field).toBe("reason");
    expect((await api(`/v1/operations/${operation.id}`, { as: { key: setup.tenant.key } })).body.data.status).toBe(
      "unknown",
    );
    expect((await api(`/v1/operations/${operation.id}`, { as: { key: other.key } })).status).toBe(404);
  });
});

describe("cancelling", () => {
  it("says an unknown operation cannot be interrupted, and a finished one had already finished", async () => {
    const { operation } = await unknownOutcome();
    const unknown = await api(`/v1/operations/${operation.id}/cancel`, {
      method: "POST",
      as: { key: setup.tenant.key },
    });
    expect(unknown.body).toMatchObject({ outcome: "not_interruptible", data: { status: "unknown" } });
    await resetCrm();
    const run = await setup.run();
    const proposal = await approvedAddressChange(setup, run, "ADDR-3");
    const done = await commit(setup, run, "commit_address_change", proposal.id);
    const finished = await api(`/v1/operations/${done.evidence.operation}/cancel`, {
      method: "POST",
      as: { key: setup.tenant.key },
    });
    expect(finished.body).toMatchObject({ outcome: "already_finished", data: { status: "succeeded" } });
  });

  it("stops a queued operation before anything is sent, and the commit then sends nothing", async () => {
    const run = await setup.run();
    const proposal = await approvedAddressChange(setup, run, "ADDR-2");
    // An operation waiting for its turn (another write on the record holds the lock).
    const db = await testDb();
    const queued = await db.operation.create({
      data: {
        id: `op_${"0".repeat(25)}q`,
        organizationId: setup.tenant.organizationId,
        runId: run,
        proposalId: proposal.id,
        tool: `${setup.crm.key("commit_address_change")}@1`,
        idempotencyKey: commitKey(setup, run, proposal.id),
        argumentsSha256: proposal.arguments_sha256,
        status: "queued",
      },
    });
    const stopped = await api(`/v1/operations/${queued.id}/cancel`, { method: "POST", as: { key: setup.tenant.key } });
    expect(stopped.body).toMatchObject({ outcome: "stopped", data: { status: "cancelled" } });
    const envelope = await commit(setup, run, "commit_address_change", proposal.id);
    expect(envelope.error.code).toBe("CANCELLED");
    expect(await crmCustomer("C-1842")).toMatchObject({ version: 17 });
    expect(await crmOperationsOf(run)).toHaveLength(0);
  });
});
