import { describe, expect, it } from "vitest";
import { differenceKind, type DecisionSummary } from "./compare";

// The names simulation and shadow mode give a changed decision.

const approval = (over: Partial<DecisionSummary> = {}): DecisionSummary => ({
  rule: "writes",
  decision: "require_approval",
  approvals_required: 1,
  approver_roles: ["owner", "admin"],
  requester_can_approve: false,
  ttl_seconds: 3600,
  ...over,
});
const allow: DecisionSummary = approval({ decision: "allow", approvals_required: 0, approver_roles: [] });
const deny: DecisionSummary = approval({ decision: "deny", approvals_required: 0, approver_roles: [] });

describe("differenceKind", () => {
  it("names a change of decision first", () => {
    expect(differenceKind(allow, approval())).toBe("allow -> require_approval");
    expect(differenceKind(approval(), deny)).toBe("require_approval -> deny");
    expect(differenceKind(allow, deny)).toBe("allow -> deny");
  });

  it("then the quorum, the roles, the requester, the expiry and the escalation", () => {
    expect(differenceKind(approval(), approval({ approvals_required: 2 }))).toBe("quorum 1 -> 2");
    expect(differenceKind(approval(), approval({ approver_roles: ["owner"] }))).toBe("approver_roles");
    expect(differenceKind(approval(), approval({ requester_can_approve: true }))).toBe("requester_can_approve");
    expect(differenceKind(approval(), approval({ ttl_seconds: 600 }))).toBe("ttl_seconds");
    expect(differenceKind(approval(), approval({ escalate_after_seconds: 60, escalate_to_roles: ["owner"] }))).toBe(
      "escalation",
    );
  });

  it("sees no difference in the rule's name, the roles' order, or the fields of a decision that asks nobody", () => {
    expect(differenceKind(approval(), approval({ rule: "other" }))).toBeNull();
    expect(differenceKind(approval(), approval({ approver_roles: ["admin", "owner"] }))).toBeNull();
    expect(differenceKind(allow, { ...allow, ttl_seconds: 60, rule: "x" })).toBeNull();
  });
});
