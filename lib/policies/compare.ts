import type { PolicyOutcome } from "./rules";

// How two decisions on the same facts differ, named the way the editor shows
// it: the decision kind first (allow → require_approval, → deny), then the
// quorum, who approves, whether the requester may, the expiry and escalation.
// Used by simulation (a draft against recorded decisions) and shadow mode (the
// shadow table beside the live one). Pure and safe for the browser.

export type DecisionSummary = Pick<
  PolicyOutcome,
  "rule" | "decision" | "approvals_required" | "approver_roles" | "requester_can_approve" | "ttl_seconds"
> &
  Partial<Pick<PolicyOutcome, "escalate_after_seconds" | "escalate_to_roles">>;

const sameSet = (a: readonly string[] = [], b: readonly string[] = []) =>
  a.length === b.length && a.every((item) => b.includes(item));

/** A short stable name of what changed from `before` to `after`, or null when they decide alike. */
export function differenceKind(before: DecisionSummary, after: DecisionSummary): string | null {
  if (before.decision !== after.decision) return `${before.decision} -> ${after.decision}`;
  // Allow and deny ask nobody: their other fields do not change what happens.
  if (after.decision !== "require_approval") return null;
  if (before.approvals_required !== after.approvals_required)
    return `quorum ${before.approvals_required} -> ${after.approvals_required}`;
  if (!sameSet(before.approver_roles, after.approver_roles)) return "approver_roles";
  if (before.requester_can_approve !== after.requester_can_approve) return "requester_can_approve";
  if (before.ttl_seconds !== after.ttl_seconds) return "ttl_seconds";
  if (
    before.escalate_after_seconds !== after.escalate_after_seconds ||
    !sameSet(before.escalate_to_roles, after.escalate_to_roles)
  )
    return "escalation";
  return null;
}

/** The part of an outcome a difference shows (both sides), without the rule's description. */
export function summarize(outcome: DecisionSummary): DecisionSummary {
  return {
    rule: outcome.rule,
    decision: outcome.decision,
    approvals_required: outcome.approvals_required,
    approver_roles: [...outcome.approver_roles],
    requester_can_approve: outcome.requester_can_approve,
    ttl_seconds: outcome.ttl_seconds,
    ...(outcome.escalate_after_seconds !== undefined && {
      escalate_after_seconds: outcome.escalate_after_seconds,
      escalate_to_roles: [...(outcome.escalate_to_roles ?? [])],
    }),
  };
}
