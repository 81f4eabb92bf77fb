import { beforeAll, describe, expect, it } from "vitest";
import { api, createTenant, testDb, type Tenant } from "./helpers";

// GET|PUT /v1/policies: the seeded defaults, versions kept, who may
// change them, and the validation of every row.

let tenant: Tenant;
let other: Tenant;

beforeAll(async () => {
  tenant = await createTenant("pro");
  other = await createTenant("free");
});

const allowReads = { id: "reads", match: { effect: "read" }, decision: "allow" };

describe("the default table", () => {
  it("starts every organization on the default policy table as version 1", async () => {
    const response = await api("/v1/policies", { as: { key: tenant.key } });
    expect(response.status).toBe(200);
    const { data } = response.body;
    expect(data.version).toBe(1);
    expect(data.rules.map((r: { id: string }) => r.id)).toEqual([
      "reads",
      "sandbox-drafts",
      "large-payments",
      "payments",
      "large-bulk",
      "deletes",
      "bulk",
      "external-messages",
      "writes",
    ]);
    expect(data.rules.find((r: { id: string }) => r.id === "large-payments")).toMatchObject({
      decision: "require_approval",
      approvals_required: 2,
      approver_roles: ["owner", "admin"],
      match: { actions: ["payment"], amount_at_least: { EUR: 10_000 } },
    });
    // No row lets a production write through.
    expect(
      data.rules.filter(
        (r: { decision: string; match: { effect?: string; environments?: string[] } }) =>
          r.decision === "allow" && r.match.effect !== "read" && !r.match.environments,
      ),
    ).toEqual([]);
  });

  it("is readable by a viewer and a key with tools:read", async () => {
    expect((await api("/v1/policies", { as: await tenant.as("viewer") })).status).toBe(200);
    expect((await api("/v1/policies", { as: { key: await tenant.keyWith(["tools:read"]) } })).status).toBe(200);
    expect((await api("/v1/policies", { as: { key: await tenant.keyWith(["files:read"]) } })).status).toBe(403);
  });
});

describe("publishing a new version", () => {
  it("keeps every old version and answers warnings for rows that let writes through", async () => {
    const put = await api("/v1/policies", {
      method: "PUT",
      json: { rules: [{ id: "everything", match: {}, decision: "allow" }] },
      as: await tenant.as("admin"),
    });
    expect(put.status).toBe(200);
    expect(put.body.data).toMatchObject({
      version: 2,
      rules: [
        {
          id: "everything",
          decision: "allow",
          approvals_required: 0,
          approver_roles: [],
          ttl_seconds: 3600,
          requester_can_approve: false,
        },
      ],
    });
    expect(put.body.warnings).toEqual([expect.stringContaining("everything")]);
    const versions = await api("/v1/policies/versions", { as: { key: tenant.key } });
    expect(versions.body.data.map((v: { version: number }) => v.version)).toEqual([2, 1]);
    const first = await api("/v1/policies/versions/1", { as: { key: tenant.key } });
    expect(first.body.data.rules).toHaveLength(9);
    expect((await api("/v1/policies/versions/9", { as: { key: tenant.key } })).status).toBe(404);
    const restored = await api("/v1/policies", {
      method: "PUT",
      json: { rules: first.body.data.rules, base_version: 2 },
      as: await tenant.as("owner"),
    });
    expect(restored.body.data.version).toBe(3);
    expect(restored.body.warnings).toEqual([]);
  });

  it("refuses a stale base version instead of overwriting someone else's change", async () => {
    const current = (await api("/v1/policies", { as: { key: tenant.key } })).body.data;
    const stale = await api("/v1/policies", {
      method: "PUT",
      json: { rules: [allowReads], base_version: current.version - 1 },
      as: await tenant.as("admin"),
    });
    expect(stale.status).toBe(409);
    expect(stale.body.error).toMatchObject({
      code: "policy_version_conflict",
      reason: { current_version: current.version },
    });
    expect((await api("/v1/policies", { as: { key: tenant.key } })).body.data.version).toBe(current.version);
  });

  it("is for signed-in owners and admins only: never an API key, never an approver", async () => {
    const before = await (await testDb()).policyVersion.count({ where: { organizationId: tenant.organizationId } });
    const byKey = await api("/v1/policies", { method: "PUT", json: { rules: [allowReads] }, as: { key: tenant.key } });
    expect(byKey.status).toBe(403);
    for (const role of ["approver", "developer", "viewer"] as const) {
      const response = await api("/v1/policies", {
        method: "PUT",
        json: { rules: [allowReads] },
        as: await tenant.as(role),
      });
      expect(response.status).toBe(403);
      expect(response.body.error.code).toBe("forbidden");
    }
    expect(await (await testDb()).policyVersion.count({ where: { organizationId: tenant.organizationId } })).toBe(
      before,
    );
  });

  it.each([
    [{ rules: [] }, "invalid_parameter", "rules"],
    [{ rules: [{ id: "a", decision: "require_approval" }] }, "invalid_parameter", "rules[0].approvals_required"],
    [
      { rules: [{ id: "a", decision: "require_approval", approvals_required: 1, approver_roles: ["viewer"] }] },
      "invalid_parameter",
      "rules[0].approver_roles[0]",
    ],
    [
      { rules: [{ id: "a", decision: "allow", approvals_required: 2 }] },
      "invalid_parameter",
      "rules[0].approvals_required",
    ],
    [{ rules: [{ id: "a", decision: "allow", ttl_seconds: 30 }] }, "invalid_parameter", "rules[0].ttl_seconds"],
    [{ rules: [allowReads, { ...allowReads }] }, "invalid_parameter", "rules[1].id"],
    [{ rules: [{ id: "a", decision: "maybe" }] }, "invalid_parameter", "rules[0].decision"],
    [
      { rules: [{ id: "a", decision: "deny", match: { amount_at_least: { eur: 5 } } }] },
      "invalid_parameter",
      "rules[0].match.amount_at_least",
    ],
    [{ rules: [{ id: "a", decision: "deny", match: { tool: ["x"] } }] }, "unknown_parameter", "rules[0].match.tool"],
    [{ rules: [allowReads], force: true }, "unknown_parameter", "force"],
  ])("refuses %j with %s on %s", async (body, code, field) => {
    const response = await api("/v1/policies", { method: "PUT", json: body, as: await tenant.as("admin") });
    expect(response.status).toBe(400);
    expect(response.body.error.code).toBe(code);
    expect(
      response.body.error.errors
        .map((e: { field: string }) => e.field)
        .some((f: string) => f === field || f.startsWith(`${field}.`)),
    ).toBe(true);
  });

  it("keeps each organization's table to itself", async () => {
    const mine = (await api("/v1/policies", { as: { key: tenant.key } })).body.data.version;
    expect(mine).toBeGreaterThan(1);
    expect((await api("/v1/policies", { as: { key: other.key } })).body.data.version).toBe(1);
  });
});
