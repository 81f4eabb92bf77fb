import { describe, expect, it } from "vitest";
import { defaultPolicyRules, LARGE_BULK_RECORDS, LARGE_PAYMENT_MINOR } from "./defaults";
import { evaluatePolicy, FALLBACK_RULE_ID, ruleMatches, toolMatches, unguardedWriteRules } from "./engine";
import { PolicyRules, type PolicyFacts } from "./rules";

const table = { version: 1, rules: PolicyRules.parse(defaultPolicyRules) };

const write = (facts: Partial<PolicyFacts> = {}): PolicyFacts => ({
  tool: "mcp_1_commit_address_change",
  effect: "write",
  environment: "production",
  action: "update",
  amount: null,
  records_affected: 1,
  irreversible: false,
  external_message: false,
  ...facts,
});

describe("the default table", () => {
  it("lets reads through", () => {
    expect(evaluatePolicy(table, write({ effect: "read", action: null, tool: "calculate" }))).toMatchObject({
      rule: "reads",
      decision: "allow",
      approvals_required: 0,
    });
  });

  it("lets reversible sandbox drafts through, but not an irreversible or outgoing one", () => {
    expect(evaluatePolicy(table, write({ environment: "sandbox", action: "create" })).decision).toBe("allow");
    expect(evaluatePolicy(table, write({ environment: "sandbox", irreversible: true })).decision).toBe(
      "require_approval",
    );
    expect(
      evaluatePolicy(
        table,
        write({ environment: "sandbox", action: "message", external_message: true, irreversible: true }),
      ).rule,
    ).toBe("external-messages");
  });

  it("asks one approver for an address change in production (no silent allow for a write)", () => {
    expect(evaluatePolicy(table, write())).toMatchObject({
      rule: "writes",
      decision: "require_approval",
      approvals_required: 1,
      approver_roles: ["owner", "admin", "approver"],
    });
  });

  it("asks one approver below the payment threshold and two administrators at it", () => {
    const small = evaluatePolicy(
      table,
      write({
        action: "payment",
        irreversible: true,
        amount: { value_minor: LARGE_PAYMENT_MINOR - 1, currency: "EUR" },
      }),
    );
    expect(small).toMatchObject({ rule: "payments", approvals_required: 1 });
    const large = evaluatePolicy(
      table,
      write({ action: "payment", irreversible: true, amount: { value_minor: LARGE_PAYMENT_MINOR, currency: "EUR" } }),
    );
    expect(large).toMatchObject({
      rule: "large-payments",
      approvals_required: 2,
      approver_roles: ["owner", "admin"],
      ttl_seconds: 1800,
    });
  });

  it("compares thresholds per currency: an unlisted currency falls to the next row, never to allow", () => {
    const yen = evaluatePolicy(
      table,
      write({ action: "payment", amount: { value_minor: 10_000_000, currency: "JPY" } }),
    );
    expect(yen).toMatchObject({ rule: "payments", decision: "require_approval" });
  });

  it("asks one approver for a small bulk change and two from the bulk threshold", () => {
    expect(evaluatePolicy(table, write({ records_affected: 2 })).rule).toBe("bulk");
    expect(evaluatePolicy(table, write({ records_affected: LARGE_BULK_RECORDS - 1 })).rule).toBe("bulk");
    expect(evaluatePolicy(table, write({ records_affected: LARGE_BULK_RECORDS }))).toMatchObject({
      rule: "large-bulk",
      approvals_required: 2,
    });
  });

  it("asks an approval for deletes and external messages", () => {
    expect(evaluatePolicy(table, write({ action: "delete" })).rule).toBe("deletes");
    expect(evaluatePolicy(table, write({ action: "message", external_message: true, irreversible: true })).rule).toBe(
      "external-messages",
    );
  });

  it("has no row that lets a write through outside the sandbox", () => {
    expect(unguardedWriteRules(table.rules)).toEqual([]);
  });
});

describe("matching", () => {
  it("takes the first matching row in order", () => {
    const rules = PolicyRules.parse([
      { id: "direct-crm-email", match: { tools: ["mcp_*_send_email"] }, decision: "allow" },
      ...defaultPolicyRules,
    ]);
    const outcome = evaluatePolicy(
      { version: 4, rules },
      write({ tool: "mcp_3_send_email", action: "message", external_message: true }),
    );
    expect(outcome).toMatchObject({ rule: "direct-crm-email", decision: "allow", policy_version: 4 });
  });

  it("reads tool patterns literally except for *", () => {
    expect(toolMatches(["mcp_*_send_email"], "mcp_12_send_email")).toBe(true);
    expect(toolMatches(["mcp_*_send_email"], "mcp_12_send_emails")).toBe(false);
    expect(toolMatches(["mcp_1.send"], "mcp_1xsend")).toBe(false);
    expect(toolMatches(["calculate"], "calculate")).toBe(true);
  });

  it("requires every condition of a row", () => {
    const match = { effect: "write" as const, environments: ["production"], irreversible: true };
    expect(ruleMatches(match, write({ irreversible: true }))).toBe(true);
    expect(ruleMatches(match, write({ irreversible: false }))).toBe(false);
    expect(ruleMatches(match, write({ irreversible: true, environment: "staging" }))).toBe(false);
    expect(ruleMatches({ actions: ["payment"] }, write({ action: null }))).toBe(false);
    expect(ruleMatches({ amount_at_least: { EUR: 0 } }, write({ amount: null }))).toBe(false);
    expect(ruleMatches({}, write())).toBe(true);
  });

  it("falls back to one approval for a write and allow for a read when no row matches", () => {
    const rules = PolicyRules.parse([{ id: "deny-deletes", match: { actions: ["delete"] }, decision: "deny" }]);
    expect(evaluatePolicy({ version: 2, rules }, write())).toMatchObject({
      rule: FALLBACK_RULE_ID,
      decision: "require_approval",
      approvals_required: 1,
    });
    expect(evaluatePolicy({ version: 2, rules }, write({ effect: "read" }))).toMatchObject({
      rule: FALLBACK_RULE_ID,
      decision: "allow",
    });
    expect(evaluatePolicy({ version: 2, rules }, write({ action: "delete" }))).toMatchObject({
      rule: "deny-deletes",
      decision: "deny",
    });
  });

  it("points out allow rows that let writes through without a tool list", () => {
    const rules = PolicyRules.parse([
      { id: "everything", match: {}, decision: "allow" },
      { id: "named", match: { tools: ["x"] }, decision: "allow" },
    ]);
    expect(unguardedWriteRules(rules)).toEqual(["everything"]);
  });
});
