import { beforeAll, describe, expect, it } from "vitest";
import { api, createTenant, testDb, type Tenant } from "./helpers";
import {
  ADDR_1,
  ADDR_2,
  approve,
  approveOk,
  commit,
  crmCustomer,
  crmOperationsOf,
  getProposal,
  previewAddress,
  crmSuite,
  refuse,
  resetCrm,
  touchCustomer,
} from "./proposals-helpers";

// A person corrects an agent's write before approving it: the corrected
// arguments go through the contract and CRM Acme's own preview again, and a new
// proposal replaces the old one. Every scenario asserts on what is stored —
// Guichet's proposals and CRM Acme's record — not only on the answer.

const setup = crmSuite();
let other: Tenant;

beforeAll(async () => {
  other = await createTenant("pro");
});

const VILLEURBANNE = {
  kind: "new",
  line1: "3 cours Émile Zola",
  city: "Villeurbanne",
  postal_code: "69100",
  country: "FR",
};

async function pendingAddressChange(addressId = "ADDR-2") {
  const run = await setup.run();
  const preview = await previewAddress(setup, run, addressId);
  expect(preview.ok, JSON.stringify(preview)).toBe(true);
  return { run, proposal: await getProposal(setup.tenant, preview.evidence.proposal.id) };
}

async function revise(
  id: string,
  args: unknown,
  role: Parameters<Tenant["as"]>[0] = "approver",
  tenant = setup.tenant,
) {
  return api(`/v1/proposals/${id}/revise`, { json: { arguments: args }, as: await tenant.as(role) });
}

async function proposalsOfRun(run: string) {
  return (await testDb()).proposal.findMany({ where: { runId: run }, orderBy: { createdAt: "asc" } });
}

async function memberId(role: Parameters<Tenant["as"]>[0]) {
  return (await (await testDb()).member.findFirstOrThrow({ where: { email: setup.tenant.emails[role] } })).id;
}

describe("POST /v1/proposals/{proposal}/revise", () => {
  it("makes a new proposal from the service's preview, closes the old one as revised, and commits the revision once", async () => {
    const { run, proposal } = await pendingAddressChange();
    const form = await api(`/v1/proposals/${proposal.id}/revise`, { as: await setup.tenant.as("approver") });
    expect(form.status).toBe(200);
    expect(form.body.data).toMatchObject({
      tool: `${setup.crm.key("preview_address_change")}@1`,
      arguments: { customer_id: "C-1842", destination: { kind: "saved", address_id: "ADDR-2" } },
      input_schema: { type: "object" },
    });
    expect(form.body.data.arguments).not.toHaveProperty("expected_version");

    const revised = await revise(proposal.id, { customer_id: "C-1842", destination: VILLEURBANNE });
    expect(revised.status, JSON.stringify(revised.body)).toBe(201);
    const approverId = await memberId("approver");
    expect(revised.body.data).toMatchObject({
      status: "pending",
      supersedes: proposal.id,
      superseded_by: null,
      target: { type: "customer", id: "C-1842", version: 17 },
      arguments: { customer_id: "C-1842", destination: VILLEURBANNE, expected_version: 17 },
      changes: [
        { field: "shipping_address", before: ADDR_1, after: expect.objectContaining({ city: "Villeurbanne" }) },
      ],
      revision: {
        revised_by: { id: approverId },
        changes: expect.arrayContaining([
          { field: "/destination/city", before: null, after: "Villeurbanne" },
          { field: "/destination/kind", before: "saved", after: "new" },
        ]),
      },
    });
    expect(revised.body.data.effect).toContain("Villeurbanne");
    const newId = revised.body.data.id as string;
    expect(await getProposal(setup.tenant, proposal.id)).toMatchObject({ status: "revised", superseded_by: newId });

    // Who changed what, in the audit trail: the fields, never their values.
    const audit = await (
      await testDb()
    ).auditEvent.findFirstOrThrow({
      where: { organizationId: setup.tenant.organizationId, action: "proposal.revised", targetId: proposal.id },
    });
    expect(audit).toMatchObject({ actorId: approverId });
    expect(JSON.stringify(audit.details)).toContain("/destination/city");
    expect(JSON.stringify(audit.details)).not.toContain("Villeurbanne");

    // The original can be neither approved nor committed.
    const late = await approve(setup.tenant, proposal.id, "admin", proposal.arguments_sha256);
    expect(late.status).toBe(409);
    expect(late.body.error.code).toBe("proposal_revised");
    const stale = await commit(setup, run, "commit_address_change", proposal.id);
    expect(stale).toMatchObject({ ok: false, error: { code: "PROPOSAL_NOT_APPROVED" } });
    expect(stale.error.message).toContain(newId);

    // Four eyes: the reviser alone cannot approve the revision; someone else can.
    const own = await approve(setup.tenant, newId, "approver");
    expect(own.status).toBe(403);
    expect(own.body.error.code).toBe("self_approval_forbidden");
    expect((await approveOk(setup.tenant, newId, "admin")).status).toBe("approved");

    const done = await commit(setup, run, "commit_address_change", newId);
    expect(done, JSON.stringify(done)).toMatchObject({
      ok: true,
      result: { customer_id: "C-1842", previous_version: 17, new_version: 18 },
      evidence: {
        proposal_id: newId,
        revision: {
          revised_by: approverId,
          original_proposal: proposal.id,
          arguments: { destination: VILLEURBANNE },
          note: expect.stringContaining("A person revised the arguments"),
        },
      },
    });
    const { kind: _kind, ...address } = VILLEURBANNE;
    expect(await crmCustomer("C-1842")).toMatchObject({ version: 18, shipping_address: address });
    expect(await crmOperationsOf(run)).toHaveLength(1);
    const again = await commit(setup, run, "commit_address_change", newId);
    expect(again.ok).toBe(true);
    expect(await crmOperationsOf(run)).toHaveLength(1);
  });

  it("a stale target yields a proposal at the record's new version, never the old one", async () => {
    const { proposal } = await pendingAddressChange();
    const version = await touchCustomer("C-1842");
    expect(version).toBe(18);
    const revised = await revise(proposal.id, { customer_id: "C-1842", destination: VILLEURBANNE });
    expect(revised.status).toBe(201);
    expect(revised.body.data.target.version).toBe(18);
    expect(revised.body.data.arguments.expected_version).toBe(18);
  });

  it.each([
    [
      "breaks the preview's contract",
      { customer_id: "C-1842", destination: { kind: "new", line1: "3 cours Émile Zola", country: "FR" } },
      "INVALID_ARGUMENTS",
    ],
    ["names an unknown argument", { customer_id: "C-1842", destination: VILLEURBANNE, extra: 1 }, "INVALID_ARGUMENTS"],
    [
      "is refused by the service's own rules",
      { customer_id: "C-1842", destination: { kind: "saved", address_id: "ADDR-999" } },
      null,
    ],
  ])("revised arguments that %s are refused with revision_invalid and nothing is created", async (_, args, code) => {
    const { run, proposal } = await pendingAddressChange();
    const before = await proposalsOfRun(run);
    const response = await revise(proposal.id, args);
    expect(response.status, JSON.stringify(response.body)).toBe(422);
    expect(response.body.error.code).toBe("revision_invalid");
    if (code) expect(response.body.error.reason.tool_error).toBe(code);
    else expect(response.body.error.reason.upstream_code ?? response.body.error.reason.tool_error).toBeTruthy();
    expect(await proposalsOfRun(run)).toEqual(before);
    expect((await getProposal(setup.tenant, proposal.id)).status).toBe("pending");
  });

  it("refuses a revision that changes nothing, or another record", async () => {
    const { run, proposal } = await pendingAddressChange();
    const same = await revise(proposal.id, {
      customer_id: "C-1842",
      destination: { kind: "saved", address_id: "ADDR-2" },
    });
    expect(same.status).toBe(422);
    expect(same.body.error.code).toBe("revision_unchanged");
    const elsewhere = await revise(proposal.id, {
      customer_id: "C-2001",
      destination: { kind: "saved", address_id: "ADDR-5" },
    });
    expect(elsewhere.status).toBe(422);
    expect(elsewhere.body.error.code).toBe("revision_invalid");
    expect(await proposalsOfRun(run)).toHaveLength(1);
  });

  it("refuses to revise an expired, refused or consumed proposal, and a revised one", async () => {
    const expired = (await pendingAddressChange()).proposal;
    await (
      await testDb()
    ).proposal.update({ where: { id: expired.id }, data: { expiresAt: new Date(Date.now() - 1000) } });
    const late = await revise(expired.id, { customer_id: "C-1842", destination: VILLEURBANNE });
    expect(late.status).toBe(409);
    expect(late.body.error.code).toBe("proposal_expired");

    const refused = (await pendingAddressChange()).proposal;
    expect((await refuse(setup.tenant, refused.id, "admin", "Non.")).status).toBe(200);
    const decided = await revise(refused.id, { customer_id: "C-1842", destination: VILLEURBANNE });
    expect(decided.status).toBe(409);
    expect(decided.body.error.code).toBe("proposal_not_pending");

    const { run, proposal: consumed } = await pendingAddressChange();
    await approveOk(setup.tenant, consumed.id, "admin");
    expect((await commit(setup, run, "commit_address_change", consumed.id)).ok).toBe(true);
    const used = await revise(consumed.id, { customer_id: "C-1842", destination: VILLEURBANNE });
    expect(used.status).toBe(409);
    expect(used.body.error.code).toBe("proposal_not_pending");

    await resetCrm();
    const first = (await pendingAddressChange()).proposal;
    expect((await revise(first.id, { customer_id: "C-1842", destination: VILLEURBANNE })).status).toBe(201);
    const twice = await revise(first.id, {
      customer_id: "C-1842",
      destination: { kind: "saved", address_id: "ADDR-3" },
    });
    expect(twice.status).toBe(409);
    expect(twice.body.error.code).toBe("proposal_revised");
  });

  it("only people who may decide revise: a viewer 403, an API key 403, another organization 404", async () => {
    const { run, proposal } = await pendingAddressChange();
    const viewer = await revise(proposal.id, { customer_id: "C-1842", destination: VILLEURBANNE }, "viewer");
    expect(viewer.status).toBe(403);
    expect(viewer.body.error.code).toBe("approver_not_authorized");
    const byKey = await api(`/v1/proposals/${proposal.id}/revise`, {
      json: { arguments: { customer_id: "C-1842", destination: VILLEURBANNE } },
      as: { key: setup.tenant.key },
    });
    expect(byKey.status).toBe(403);
    const foreign = await revise(proposal.id, { customer_id: "C-1842", destination: VILLEURBANNE }, "owner", other);
    expect(foreign.status).toBe(404);
    expect(foreign.body.error.code).toBe("not_found");
    const unknownKey = await api(`/v1/proposals/${proposal.id}/revise`, {
      json: { arguments: {}, note: "x" },
      as: await setup.tenant.as("approver"),
    });
    expect(unknownKey.status).toBe(400);
    expect(unknownKey.body.error.code).toBe("unknown_parameter");
    expect(await proposalsOfRun(run)).toHaveLength(1);
    expect((await getProposal(setup.tenant, proposal.id)).status).toBe("pending");
    expect(ADDR_2.city).toBe("Lyon");
  });
});
