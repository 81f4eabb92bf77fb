import { describe, expect, it } from "vitest";
import { defaultPolicyRules } from "./defaults";
import { evaluatePolicy } from "./engine";
import { PolicyRule, PolicyRules } from "./rules";

function issues(input: unknown) {
  const result = PolicyRules.safeParse(input);
  return result.success ? [] : result.error.issues.map((issue) => ({ path: issue.path.join("."), code: issue.code }));
}

describe("policy rules validation", () => {
  it("accepts the default table", () => {
    expect(issues(defaultPolicyRules)).toEqual([]);
  });

  it("fills the approval fields of allow and deny rows", () => {
    const [rule] = PolicyRules.parse([{ id: "reads", match: { effect: "read" }, decision: "allow" }]);
    expect(rule).toEqual({
      id: "reads",
      description: "",
      match: { effect: "read" },
      decision: "allow",
      approvals_required: 0,
      approver_roles: [],
      ttl_seconds: 3600,
      requester_can_approve: false,
    });
  });

  it("needs approvals and approvers on an approval rule, and none elsewhere", () => {
    expect(issues([{ id: "a", decision: "require_approval" }])).toEqual([
      { path: "0.approvals_required", code: "custom" },
      { path: "0.approver_roles", code: "custom" },
    ]);
    expect(issues([{ id: "a", decision: "allow", approvals_required: 1, approver_roles: ["admin"] }])).toEqual([
      { path: "0.approvals_required", code: "custom" },
      { path: "0.approver_roles", code: "custom" },
    ]);
  });

  it("refuses unknown fields, a viewer as approver, bounds and duplicates", () => {
    expect(issues([{ id: "a", decision: "allow", match: { tool: ["x"] } }])[0]).toEqual({
      path: "0.match",
      code: "unrecognized_keys",
    });
    expect(
      issues([{ id: "a", decision: "require_approval", approvals_required: 1, approver_roles: ["viewer"] }])[0].path,
    ).toBe("0.approver_roles.0");
    expect(
      issues([{ id: "a", decision: "require_approval", approvals_required: 6, approver_roles: ["admin"] }])[0].path,
    ).toBe("0.approvals_required");
    expect(issues([{ id: "a", decision: "allow", ttl_seconds: 59 }])[0].path).toBe("0.ttl_seconds");
    expect(issues([{ id: "a", decision: "allow", ttl_seconds: 604_801 }])[0].path).toBe("0.ttl_seconds");
    expect(issues([{ id: "a", decision: "allow", ttl_seconds: 604_800 }])).toEqual([]);
    expect(
      issues([
        { id: "a", decision: "allow" },
        { id: "a", decision: "deny" },
      ]),
    ).toEqual([{ path: "1.id", code: "custom" }]);
    expect(issues([])[0].code).toBe("too_small");
    expect(issues([{ id: "Bad Id", decision: "allow" }])[0].path).toBe("0.id");
  });

  it("checks thresholds per currency", () => {
    expect(issues([{ id: "a", decision: "deny", match: { amount_at_least: { eur: 10 } } }])[0].path).toMatch(
      /^0\.match\.amount_at_least/,
    );
    expect(issues([{ id: "a", decision: "deny", match: { amount_at_least: { EUR: -1 } } }])[0].path).toBe(
      "0.match.amount_at_least.EUR",
    );
    expect(issues([{ id: "a", decision: "deny", match: { amount_at_least: {} } }])[0].path).toBe(
      "0.match.amount_at_least",
    );
    expect(issues([{ id: "a", decision: "deny", match: { tools: ["mcp_1_x; drop"] } }])[0].path).toBe(
      "0.match.tools.0",
    );
  });
});

describe("escalation on a row", () => {
  const row = {
    id: "messages",
    decision: "require_approval",
    approvals_required: 1,
    approver_roles: ["owner", "admin", "approver"],
    ttl_seconds: 3600,
  } as const;
  const fields = (input: unknown) =>
    PolicyRule.safeParse(input).error?.issues.map((issue) => issue.path.join(".")) ?? [];

  it("takes a delay before the expiry and roles among the approvers, and the engine hands them on", () => {
    const rule = PolicyRule.parse({ ...row, escalate_after_seconds: 1800, escalate_to_roles: ["owner"] });
    expect(rule).toMatchObject({ escalate_after_seconds: 1800, escalate_to_roles: ["owner"] });
    expect(fields({ ...row, escalate_after_seconds: 1, escalate_to_roles: ["admin"] })).toEqual([]);
    const facts = {
      tool: "send_email",
      effect: "write",
      environment: "production",
      action: "message",
      amount: null,
      records_affected: 1,
      irreversible: true,
      external_message: true,
    } as const;
    expect(evaluatePolicy({ version: 3, rules: [rule] }, facts)).toMatchObject({
      rule: "messages",
      escalate_after_seconds: 1800,
      escalate_to_roles: ["owner"],
    });
    expect(evaluatePolicy({ version: 3, rules: PolicyRules.parse([row]) }, facts)).not.toHaveProperty(
      "escalate_after_seconds",
    );
  });

  it("refuses a half-said, late, out-of-group or non-approval escalation, naming the field", () => {
    expect(fields({ ...row, escalate_after_seconds: 60 })).toEqual(["escalate_to_roles"]);
    expect(fields({ ...row, escalate_to_roles: ["owner"] })).toEqual(["escalate_after_seconds"]);
    expect(fields({ ...row, escalate_after_seconds: 3600, escalate_to_roles: ["owner"] })).toEqual([
      "escalate_after_seconds",
    ]);
    expect(
      fields({ ...row, approver_roles: ["approver"], escalate_after_seconds: 60, escalate_to_roles: ["owner"] }),
    ).toEqual(["escalate_to_roles"]);
    expect(fields({ id: "a", decision: "allow", escalate_after_seconds: 60, escalate_to_roles: ["owner"] })).toEqual([
      "escalate_after_seconds",
    ]);
  });
});
