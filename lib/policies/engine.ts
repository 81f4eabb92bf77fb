import type { PolicyFacts, PolicyMatch, PolicyOutcome, PolicyRule } from "./rules";

// The policy engine: a pure function of the table and the facts. First matching
// row wins. The engine, not a prompt, decides; and when no row matches, a write
// still needs a person — a write tool executes directly only through a row that
// says `allow` for it.

/** When no row matches: reads pass, writes wait for one approver. Never a silent allow for a write. */
export const FALLBACK_RULE_ID = "default";
const fallbackRoles = ["owner", "admin", "approver"] as const;

function globToRegExp(pattern: string): RegExp {
  const escaped = pattern.split("*").map((part) => part.replace(/[.+?^${}()|[\]\\]/g, "\\$&"));
  return new RegExp(`^${escaped.join(".*")}$`);
}

export function toolMatches(patterns: readonly string[], tool: string): boolean {
  return patterns.some((pattern) => (pattern.includes("*") ? globToRegExp(pattern).test(tool) : pattern === tool));
}

/** Every condition present must hold; inside a list, any item is enough. */
export function ruleMatches(match: PolicyMatch, facts: PolicyFacts): boolean {
  if (match.tools && !toolMatches(match.tools, facts.tool)) return false;
  if (match.effect && match.effect !== facts.effect) return false;
  if (match.environments && !match.environments.includes(facts.environment)) return false;
  if (match.actions && (!facts.action || !match.actions.includes(facts.action))) return false;
  if (match.amount_at_least) {
    // An amount in a currency the row does not list cannot be compared: the row does not apply.
    const threshold = facts.amount ? match.amount_at_least[facts.amount.currency] : undefined;
    if (threshold === undefined || facts.amount!.value_minor < threshold) return false;
  }
  if (match.records_at_least !== undefined && facts.records_affected < match.records_at_least) return false;
  if (match.irreversible !== undefined && match.irreversible !== facts.irreversible) return false;
  if (match.external_message !== undefined && match.external_message !== facts.external_message) return false;
  return true;
}

export function evaluatePolicy(
  table: { version: number; rules: readonly PolicyRule[] },
  facts: PolicyFacts,
): PolicyOutcome {
  const rule = table.rules.find((candidate) => ruleMatches(candidate.match, facts));
  if (rule) {
    return {
      rule: rule.id,
      description: rule.description,
      policy_version: table.version,
      decision: rule.decision,
      approvals_required: rule.approvals_required,
      approver_roles: [...rule.approver_roles],
      ttl_seconds: rule.ttl_seconds,
      requester_can_approve: rule.requester_can_approve,
      ...(rule.escalate_after_seconds !== undefined &&
        rule.escalate_to_roles && {
          escalate_after_seconds: rule.escalate_after_seconds,
          escalate_to_roles: [...rule.escalate_to_roles],
        }),
    };
  }
  const write = facts.effect === "write";
  return {
    rule: FALLBACK_RULE_ID,
    description: write
      ? "Aucune ligne ne s'applique : une écriture attend l'accord d'une personne."
      : "Aucune ligne ne s'applique : les lectures passent.",
    policy_version: table.version,
    decision: write ? "require_approval" : "allow",
    approvals_required: write ? 1 : 0,
    approver_roles: write ? [...fallbackRoles] : [],
    ttl_seconds: 3600,
    requester_can_approve: false,
  };
}

/** Rows that let some write through without anyone approving, for the editor to point out. */
export function unguardedWriteRules(rules: readonly PolicyRule[]): string[] {
  return rules
    .filter(
      (rule) =>
        rule.decision === "allow" && rule.match.effect !== "read" && !rule.match.tools && !rule.match.environments,
    )
    .map((rule) => rule.id);
}
