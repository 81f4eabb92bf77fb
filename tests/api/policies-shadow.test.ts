import { beforeAll, describe, expect, it } from "vitest";
import { callTool } from "./dispatch-fixtures";
import { api, createTenant, testDb, type Tenant } from "./helpers";
import { getProposal, previewAddress, setupCrm, type CrmSetup } from "./proposals-helpers";

// Shadow mode: a table published as `shadow` is evaluated beside the live one
// on every write decision, changes none of them, and records each one it would
// have taken otherwise (a list and telemetry counters by tool and kind). One at
// a time; promoted to a new live version in one step, or dropped.

let setup: CrmSetup;
let other: Tenant;

const live = async (tenant: Tenant) =>
  (await api("/v1/policies", { as: { key: tenant.key } })).body.data as { version: number; rules: any[] };

async function sendEmail(tenant: CrmSetup = setup) {
  const run = await tenant.run();
  const asked = await callTool(tenant.tenant, run, tenant.crm.key("send_email"), {
    to: ["camille.martin@example.com"],
    subject: `Ombre ${Date.now()} ${Math.random()}`,
    body: "Bonjour.",
  });
  expect(asked.error?.code, JSON.stringify(asked)).toBe("APPROVAL_REQUIRED");
  return { run, proposal: asked.error.proposal_id as string };
}

const quorumTwoOnMessages = (rules: any[]) =>
  rules.map((rule) => (rule.id === "external-messages" ? { ...rule, approvals_required: 2 } : rule));

const differences = async (tenant: Tenant = setup.tenant) =>
  api("/v1/policies/shadow/differences?limit=100", { as: { key: tenant.key } });

const shadowCounters = async (tenant: Tenant) =>
  (await api("/v1/telemetry", { as: { key: tenant.key } })).body.data.shadow_differences as {
    tool: string;
    kind: string;
    count: number;
  }[];

beforeAll(async () => {
  setup = await setupCrm(await createTenant("pro"));
  other = await createTenant("pro");
});

describe("shadow mode", () => {
  it("changes no decision, counts each differing one exactly, and is promoted to a new live version", async () => {
    const admin = await setup.tenant.as("admin");
    const before = await live(setup.tenant);
    const put = await api("/v1/policies/shadow", {
      method: "PUT",
      json: { rules: quorumTwoOnMessages(before.rules) },
      as: admin,
    });
    expect(put.status, JSON.stringify(put.body)).toBe(201);
    expect(put.body.data).toMatchObject({ id: expect.stringMatching(/^shp_/), base_version: before.version });
    expect((await api("/v1/policies/shadow", { as: { key: setup.tenant.key } })).body.data.id).toBe(put.body.data.id);

    const sent = [await sendEmail(), await sendEmail()];
    for (const { proposal } of sent)
      expect((await getProposal(setup.tenant, proposal)).policy).toMatchObject({
        rule: "external-messages",
        approvals_required: 1,
        policy_version: before.version,
      });
    // A write both tables decide alike is not a difference.
    const run = await setup.run();
    expect((await previewAddress(setup, run, "ADDR-2")).evidence.proposal.status).toBe("pending");

    const listed = await differences();
    expect(listed.status).toBe(200);
    expect(listed.body.counts).toEqual([{ tool: setup.crm.key("send_email"), kind: "quorum 1 -> 2", count: 2 }]);
    expect(listed.body.data).toHaveLength(2);
    expect(listed.body.data.map((d: { proposal: string }) => d.proposal).sort()).toEqual(
      sent.map((s) => s.proposal).sort(),
    );
    expect(listed.body.data[0]).toMatchObject({
      kind: "quorum 1 -> 2",
      live: { rule: "external-messages", decision: "require_approval", approvals_required: 1 },
      shadow: { rule: "external-messages", decision: "require_approval", approvals_required: 2 },
      step: expect.stringMatching(/^step_/),
    });
    expect(await shadowCounters(setup.tenant)).toEqual([
      { tool: setup.crm.key("send_email"), kind: "quorum 1 -> 2", count: 2 },
    ]);

    const promoted = await api("/v1/policies/shadow/promote", {
      json: { base_version: before.version },
      as: await setup.tenant.as("owner"),
    });
    expect(promoted.status, JSON.stringify(promoted.body)).toBe(200);
    expect(promoted.body.data.version).toBe(before.version + 1);
    const now = await live(setup.tenant);
    expect(now.version).toBe(before.version + 1);
    expect(now.rules.find((rule) => rule.id === "external-messages").approvals_required).toBe(2);
    expect((await api("/v1/policies/shadow", { as: { key: setup.tenant.key } })).body.data).toBeNull();
    const after = await sendEmail();
    expect((await getProposal(setup.tenant, after.proposal)).policy).toMatchObject({
      approvals_required: 2,
      policy_version: before.version + 1,
    });
    // Nothing is evaluated in shadow any more: no new difference, no new counter.
    expect(
      await (await testDb()).shadowDifference.count({ where: { organizationId: setup.tenant.organizationId } }),
    ).toBe(2);
    const again = await api("/v1/policies/shadow/promote", { json: {}, as: admin });
    expect(again.status).toBe(404);
    expect(again.body.error.code).toBe("not_found");
  });

  it("refuses to promote over a live table that moved since (base_version): 409, nothing changes", async () => {
    const admin = await setup.tenant.as("admin");
    const before = await live(setup.tenant);
    const published = await api("/v1/policies/shadow", { method: "PUT", json: { rules: before.rules }, as: admin });
    expect(published.status).toBe(201);
    const stale = await api("/v1/policies/shadow/promote", { json: { base_version: before.version + 1 }, as: admin });
    expect(stale.status).toBe(409);
    expect(stale.body.error.code).toBe("policy_version_conflict");
    expect((await live(setup.tenant)).version).toBe(before.version);
    expect((await api("/v1/policies/shadow", { as: admin })).body.data).not.toBeNull();
    expect((await api("/v1/policies/shadow", { method: "DELETE", as: admin })).status).toBeLessThan(300);
  });

  it("holds one shadow table at a time: a second is a typed 409 and nothing is stored", async () => {
    const admin = await setup.tenant.as("admin");
    const rules = (await live(setup.tenant)).rules;
    const first = await api("/v1/policies/shadow", { method: "PUT", json: { rules }, as: admin });
    expect(first.status).toBe(201);
    const second = await api("/v1/policies/shadow", { method: "PUT", json: { rules }, as: admin });
    expect(second.status).toBe(409);
    expect(second.body.error).toMatchObject({ code: "shadow_policy_exists", reason: { shadow: first.body.data.id } });
    const db = await testDb();
    expect(await db.shadowPolicy.count({ where: { organizationId: setup.tenant.organizationId } })).toBe(1);

    const dropped = await api("/v1/policies/shadow", { method: "DELETE", as: admin });
    expect(dropped.status).toBe(200);
    expect(await db.shadowPolicy.count({ where: { organizationId: setup.tenant.organizationId } })).toBe(0);
    expect((await api("/v1/policies/shadow", { method: "DELETE", as: admin })).status).toBe(404);
    expect((await differences()).status).toBe(404);
  });

  it("is changed by signed-in owners and admins only, read by anyone who reads the policy, and kept per organization", async () => {
    const rules = (await live(setup.tenant)).rules;
    const byKey = await api("/v1/policies/shadow", { method: "PUT", json: { rules }, as: { key: setup.tenant.key } });
    expect(byKey.status).toBe(403);
    for (const role of ["approver", "developer", "viewer"] as const) {
      const as = await setup.tenant.as(role);
      const put = await api("/v1/policies/shadow", { method: "PUT", json: { rules }, as });
      expect(put.status).toBe(403);
      expect(put.body.error.code).toBe("forbidden");
      expect((await api("/v1/policies/shadow/promote", { json: {}, as })).status).toBe(403);
      expect((await api("/v1/policies/shadow", { method: "DELETE", as })).status).toBe(403);
    }
    const bad = await api("/v1/policies/shadow", {
      method: "PUT",
      json: { rules: [{ id: "a", decision: "allow", approver_roles: ["owner"] }] },
      as: await setup.tenant.as("admin"),
    });
    expect(bad.status).toBe(400);
    expect(bad.body.error.errors[0].field).toBe("rules[0].approver_roles");
    expect(await (await testDb()).shadowPolicy.count({ where: { organizationId: setup.tenant.organizationId } })).toBe(
      0,
    );

    // Another organization's shadow table never sees this one's calls, nor this one its.
    const put = await api("/v1/policies/shadow", {
      method: "PUT",
      json: { rules: quorumTwoOnMessages((await live(other)).rules) },
      as: await other.as("admin"),
    });
    expect(put.status).toBe(201);
    expect((await api("/v1/policies/shadow", { as: await setup.tenant.as("viewer") })).body.data).toBeNull();
    await sendEmail();
    const theirs = await differences(other);
    expect(theirs.status).toBe(200);
    expect(theirs.body).toMatchObject({ data: [], counts: [] });
    expect(await shadowCounters(other)).toEqual([]);
  });
});
