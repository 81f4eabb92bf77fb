import { beforeAll, describe, expect, it } from "vitest";
import { callTool } from "./dispatch-fixtures";
import { api, createTenant, testDb, type Tenant } from "./helpers";
import { getProposal, setupCrm, type CrmSetup } from "./proposals-helpers";

// POST /v1/proposals/decisions: several decisions in one request, each checked
// against its own hash, rule, expiry and rights and answered on its own line.

let setup: CrmSetup;
let other: Tenant;

beforeAll(async () => {
  setup = await setupCrm(await createTenant("pro"));
  other = await createTenant("pro");
});

/**
 * `count` pending e-mails (send_email has no preview: each call is a proposal), each in its own run: a run's newer
 * proposal for the same target supersedes its earlier ones. `key`: the API key that opens the runs and calls.
 */
async function pendingEmails(count: number, key = setup.tenant.key) {
  const ids: string[] = [];
  for (let i = 0; i < count; i++) {
    const run = await api("/v1/runs", { json: { agent: setup.agentId, capabilities: "read_write" }, as: { key } });
    expect(run.status, JSON.stringify(run.body)).toBe(201);
    const asked = await callTool(
      setup.tenant,
      run.body.data.id,
      setup.crm.key("send_email"),
      { to: ["camille.martin@example.com"], subject: `Lot ${Date.now()} n°${i}`, body: "Bonjour." },
      undefined,
      { key },
    );
    expect(asked.error?.code, JSON.stringify(asked)).toBe("APPROVAL_REQUIRED");
    ids.push(asked.error.proposal_id);
  }
  return ids;
}

/** An all-scopes key the approver created: what its runs ask for, the approver asks for. */
async function approversKey() {
  const db = await testDb();
  const { createApiKey } = await import("@/lib/api-keys/service");
  const { allScopes } = await import("@/lib/auth/scopes");
  const approver = await db.member.findFirstOrThrow({ where: { email: setup.tenant.emails.approver } });
  const created = await createApiKey({
    organizationId: setup.tenant.organizationId,
    name: "clé de l'approbateur",
    scopes: [...allScopes],
    createdById: approver.id,
  });
  return created.secret;
}

async function decide(body: unknown, role: Parameters<Tenant["as"]>[0] = "approver", tenant = setup.tenant) {
  return api("/v1/proposals/decisions", { json: body, as: await tenant.as(role) });
}

async function approveAll(ids: string[]) {
  const decisions = [];
  for (const id of ids)
    decisions.push({
      proposal: id,
      decision: "approve",
      arguments_sha256: (await getProposal(setup.tenant, id)).arguments_sha256,
    });
  return decisions;
}

describe("POST /v1/proposals/decisions", () => {
  it("ten proposals, one expired and one the approver may not decide: eight approved, two refused with their own reasons", async () => {
    const ids = await pendingEmails(8);
    const [expired] = await pendingEmails(1);
    // The approver's own key made this call: they asked for the write, so four eyes keeps them from approving it.
    const [own] = await pendingEmails(1, await approversKey());
    const db = await testDb();
    await db.proposal.update({ where: { id: expired }, data: { expiresAt: new Date(Date.now() - 1000) } });
    const all = [...ids.slice(0, 4), expired, ...ids.slice(4), own];
    const response = await decide({ decisions: await approveAll(all) });
    expect(response.status, JSON.stringify(response.body)).toBe(200);
    const results = response.body.data as any[];
    expect(results.map((r) => r.proposal)).toEqual(all);
    expect(results.filter((r) => r.ok)).toHaveLength(8);
    expect(results[4]).toMatchObject({ proposal: expired, ok: false, error: { code: "proposal_expired" } });
    expect(results[9]).toMatchObject({ proposal: own, ok: false, error: { code: "self_approval_forbidden" } });
    for (const result of results.filter((r) => r.ok)) expect(result.data).toMatchObject({ status: "approved" });

    const stored = await db.proposal.findMany({ where: { id: { in: all } }, include: { decisions: true } });
    const byId = new Map(stored.map((p) => [p.id, p]));
    for (const id of ids)
      expect(byId.get(id)).toMatchObject({ status: "approved", decisions: [{ decision: "approve" }] });
    expect(byId.get(expired)).toMatchObject({ status: "expired", decisions: [] });
    expect(byId.get(own)).toMatchObject({ status: "pending", decisions: [] });
  });

  it("checks each hash on its own: a changed stored hash fails that one only", async () => {
    const ids = await pendingEmails(3);
    const decisions = await approveAll(ids);
    const db = await testDb();
    await db.proposal.update({ where: { id: ids[1] }, data: { argumentsSha256: "0".repeat(64) } });
    const response = await decide({ decisions });
    expect(response.status).toBe(200);
    expect(response.body.data.map((r: any) => (r.ok ? "ok" : r.error.code))).toEqual([
      "ok",
      "arguments_hash_mismatch",
      "ok",
    ]);
    expect((await db.proposal.findUniqueOrThrow({ where: { id: ids[1] } })).status).toBe("pending");
  });

  it("refuses a selection with one reason for all, handed to each", async () => {
    const ids = await pendingEmails(2);
    const response = await decide({
      decisions: ids.map((id) => ({ proposal: id, decision: "refuse" })),
      reason: "Pas de courriel groupé ce mois-ci.",
    });
    expect(response.status).toBe(200);
    for (const id of ids)
      expect(await getProposal(setup.tenant, id)).toMatchObject({
        status: "refused",
        decisions: [{ decision: "refuse", reason: "Pas de courriel groupé ce mois-ci." }],
      });
  });

  it("answers each line on its own: another organization's proposal is not_found, a viewer is not authorized", async () => {
    const ids = await pendingEmails(2);
    const foreign = await decide({ decisions: await approveAll(ids) }, "owner", other);
    expect(foreign.status).toBe(200);
    expect(foreign.body.data.map((r: any) => r.error.code)).toEqual(["not_found", "not_found"]);
    const viewer = await decide({ decisions: await approveAll(ids) }, "viewer");
    expect(viewer.body.data.map((r: any) => r.error.code)).toEqual([
      "approver_not_authorized",
      "approver_not_authorized",
    ]);
    for (const id of ids) expect((await getProposal(setup.tenant, id)).status).toBe("pending");
  });

  it.each([
    [
      "a refusal without a reason",
      (id: string) => ({ decisions: [{ proposal: id, decision: "refuse" }] }),
      "invalid_parameter",
    ],
    [
      "the same proposal twice",
      (id: string) => ({
        decisions: [
          { proposal: id, decision: "refuse" },
          { proposal: id, decision: "refuse" },
        ],
        reason: "x",
      }),
      "invalid_parameter",
    ],
    [
      "an approval without its hash",
      (id: string) => ({ decisions: [{ proposal: id, decision: "approve" }] }),
      "invalid_parameter",
    ],
    ["an empty list", () => ({ decisions: [] }), "invalid_parameter"],
    [
      "an unknown key",
      (id: string) => ({ decisions: [{ proposal: id, decision: "refuse" }], reason: "x", all: true }),
      "unknown_parameter",
    ],
  ])("refuses %s with 400 and decides nothing", async (_, body, code) => {
    const [id] = await pendingEmails(1);
    const response = await decide(body(id));
    expect(response.status).toBe(400);
    expect(response.body.error.code).toBe(code);
    expect((await getProposal(setup.tenant, id)).status).toBe("pending");
  });

  it("refuses an API key", async () => {
    const [id] = await pendingEmails(1);
    const response = await api("/v1/proposals/decisions", {
      json: { decisions: [{ proposal: id, decision: "refuse" }], reason: "x" },
      as: { key: setup.tenant.key },
    });
    expect(response.status).toBe(403);
    expect((await getProposal(setup.tenant, id)).status).toBe("pending");
  });
});
