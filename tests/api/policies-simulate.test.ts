import { beforeAll, describe, expect, it } from "vitest";
import { callTool } from "./dispatch-fixtures";
import { api, createTenant, testDb, type Tenant } from "./helpers";
import { getProposal, setupCrm, type CrmSetup } from "./proposals-helpers";

// POST /v1/policies/simulate: a draft table against the write decisions the
// live table took (their tool, version and consequences), compared with the
// live table on the same facts. It reports what would change, per tool and
// kind, with the recorded steps as examples — and enforces nothing.

let setup: CrmSetup;
let other: Tenant;
let since: string;
const emails: string[] = [];
let suspendStep: string;
const EPOCH = "2020-01-01T00:00:00Z";

const rulesOf = async (tenant: Tenant) =>
  (await api("/v1/policies", { as: { key: tenant.key } })).body.data as { version: number; rules: any[] };

async function sendEmail(subject: string) {
  const run = await setup.run();
  const asked = await callTool(setup.tenant, run, setup.crm.key("send_email"), {
    to: ["camille.martin@example.com"],
    subject,
    body: "Bonjour.",
  });
  expect(asked.error?.code, JSON.stringify(asked)).toBe("APPROVAL_REQUIRED");
  return asked.error.proposal_id as string;
}

async function simulate(body: unknown, as?: Parameters<Tenant["as"]>[0], tenant = setup.tenant) {
  return api("/v1/policies/simulate", { json: body, as: await tenant.as(as ?? "admin") });
}

beforeAll(async () => {
  setup = await setupCrm(await createTenant("pro"));
  other = await createTenant("pro");
  since = new Date(Date.now() - 1000).toISOString();
  for (let i = 0; i < 3; i++) emails.push(await sendEmail(`Simulation ${Date.now()} n°${i}`));
  // One write the live table lets through: an explicit allow row for invoice suspensions.
  const live = await rulesOf(setup.tenant);
  const put = await api("/v1/policies", {
    method: "PUT",
    json: {
      rules: [
        { id: "suspensions", match: { tools: ["mcp_*_suspend_invoice_delivery"] }, decision: "allow" },
        ...live.rules,
      ],
      base_version: live.version,
    },
    as: await setup.tenant.as("admin"),
  });
  expect(put.status).toBe(200);
  const run = await setup.run();
  const direct = await callTool(setup.tenant, run, setup.crm.key("suspend_invoice_delivery"), {
    customer_id: "C-2001",
    invoice_ids: ["INV-2001-001"],
  });
  expect(direct.ok, JSON.stringify(direct)).toBe(true);
  suspendStep = direct.evidence.step;
});

describe("POST /v1/policies/simulate", () => {
  it("reports exactly the recorded proposals a raised quorum changes, with their steps", async () => {
    const live = await rulesOf(setup.tenant);
    const draft = live.rules.map((rule) =>
      rule.id === "external-messages" ? { ...rule, approvals_required: 2 } : rule,
    );
    const response = await simulate({ rules: draft, since });
    expect(response.status, JSON.stringify(response.body)).toBe(200);
    const { data } = response.body;
    expect(data.live_version).toBe(live.version);
    expect(data.evaluated).toBe(4);
    expect(data.changed).toBe(3);
    const email = data.tools.find((t: { tool: string }) => t.tool === setup.crm.key("send_email"));
    expect(email).toMatchObject({ evaluated: 3, changed: 3 });
    expect(email.changes).toHaveLength(1);
    expect(email.changes[0]).toMatchObject({ kind: "quorum 1 -> 2", count: 3 });
    const examples = email.changes[0].examples;
    expect(examples.map((e: { proposal: string }) => e.proposal).sort()).toEqual([...emails].sort());
    for (const example of examples) {
      expect(example.before).toEqual({
        rule: "external-messages",
        decision: "require_approval",
        approvals_required: 1,
      });
      expect(example.after).toEqual({ rule: "external-messages", decision: "require_approval", approvals_required: 2 });
    }
    // Each example names the step the call was recorded as, in its run.
    const db = await testDb();
    const steps = await db.step.findMany({ where: { id: { in: examples.map((e: { step: string }) => e.step) } } });
    expect(steps).toHaveLength(3);
    for (const step of steps) {
      expect(step.tool).toBe(setup.crm.key("send_email"));
      expect(step.runId).toBe(examples.find((e: { step: string }) => e.step === step.id).run);
    }
    const suspend = data.tools.find((t: { tool: string }) => t.tool === setup.crm.key("suspend_invoice_delivery"));
    expect(suspend).toEqual({ tool: setup.crm.key("suspend_invoice_delivery"), evaluated: 1, changed: 0, changes: [] });
  });

  it("reports the allows a deny row turns into denials", async () => {
    const live = await rulesOf(setup.tenant);
    const draft = [
      { id: "no-suspensions", match: { tools: ["mcp_*_suspend_invoice_delivery"] }, decision: "deny" },
      ...live.rules.filter((rule) => rule.id !== "suspensions"),
    ];
    const { body } = await simulate({ rules: draft, since });
    expect(body.data.changed).toBe(1);
    const suspend = body.data.tools.find((t: { tool: string }) => t.tool === setup.crm.key("suspend_invoice_delivery"));
    expect(suspend.changes).toEqual([
      {
        kind: "allow -> deny",
        count: 1,
        examples: [
          expect.objectContaining({
            step: suspendStep,
            before: { rule: "suspensions", decision: "allow", approvals_required: 0 },
            after: { rule: "no-suspensions", decision: "deny", approvals_required: 0 },
          }),
        ],
      },
    ]);
  });

  it("enforces nothing: the live table, its version and the next decision stay as they were", async () => {
    const live = await rulesOf(setup.tenant);
    const db = await testDb();
    const versions = await db.policyVersion.count({ where: { organizationId: setup.tenant.organizationId } });
    const draft = live.rules.map((rule) =>
      rule.id === "external-messages" ? { ...rule, approvals_required: 2 } : rule,
    );
    expect((await simulate({ rules: draft, since })).status).toBe(200);
    expect(await db.policyVersion.count({ where: { organizationId: setup.tenant.organizationId } })).toBe(versions);
    expect((await rulesOf(setup.tenant)).version).toBe(live.version);
    const next = await getProposal(setup.tenant, await sendEmail(`Après simulation ${Date.now()}`));
    expect(next.policy).toMatchObject({ rule: "external-messages", approvals_required: 1 });
  });

  it("counts only the caller's organization and the window asked for", async () => {
    const live = await rulesOf(other);
    const draft = live.rules.map((rule) => ({
      ...rule,
      ...(rule.decision === "require_approval" && { approvals_required: 2 }),
    }));
    const mine = await simulate({ rules: draft, since }, "admin", other);
    expect(mine.status).toBe(200);
    expect(mine.body.data).toMatchObject({ evaluated: 0, changed: 0, tools: [] });
    const later = await simulate({ rules: draft, since: new Date().toISOString() });
    expect(later.body.data.evaluated).toBe(0);
  });

  it("is for signed-in owners and admins: never an API key, never an approver, developer or viewer", async () => {
    const body = { rules: (await rulesOf(setup.tenant)).rules, since };
    const byKey = await api("/v1/policies/simulate", { json: body, as: { key: setup.tenant.key } });
    expect(byKey.status).toBe(403);
    for (const role of ["approver", "developer", "viewer"] as const) {
      const response = await simulate(body, role);
      expect(response.status).toBe(403);
      expect(response.body.error.code).toBe("forbidden");
    }
    expect((await simulate(body, "owner")).status).toBe(200);
  });

  const bounded = (escalation: Record<string, unknown>) => ({
    rules: [{ id: "a", decision: "require_approval", approvals_required: 1, approver_roles: ["owner"], ...escalation }],
    since: EPOCH,
  });
  it.each([
    [
      { rules: [{ id: "a", decision: "require_approval" }], since: EPOCH },
      "invalid_parameter",
      "rules[0].approvals_required",
    ],
    [{ rules: [], since: EPOCH }, "invalid_parameter", "rules"],
    [{ rules: [{ id: "a", decision: "allow" }], since: "hier" }, "invalid_parameter", "since"],
    [{ rules: [{ id: "a", decision: "allow" }], since: "2999-01-01T00:00:00Z" }, "invalid_parameter", "since"],
    [{ rules: [{ id: "a", decision: "allow" }] }, "invalid_parameter", "since"],
    [
      bounded({ escalate_after_seconds: 600, escalate_to_roles: ["approver"] }),
      "invalid_parameter",
      "rules[0].escalate_to_roles",
    ],
    [
      bounded({ ttl_seconds: 600, escalate_after_seconds: 600, escalate_to_roles: ["owner"] }),
      "invalid_parameter",
      "rules[0].escalate_after_seconds",
    ],
    [bounded({ escalate_after_seconds: 60 }), "invalid_parameter", "rules[0].escalate_to_roles"],
    [{ rules: [{ id: "a", decision: "allow" }], since: EPOCH, dry: true }, "unknown_parameter", "dry"],
  ])("refuses %j with %s on %s", async (body, code, field) => {
    const response = await simulate(body);
    expect(response.status).toBe(400);
    expect(response.body.error.code).toBe(code);
    expect(
      response.body.error.errors
        .map((e: { field: string }) => e.field)
        .some((f: string) => f === field || f.startsWith(`${field}.`)),
    ).toBe(true);
  });
});
