import type { Role } from "@/lib/auth/scopes";

// Who may decide on a proposal, as one pure rule: the server applies it before
// a decision (lib/proposals/decisions.ts) and the approval screen says it before
// the click (components/approvals/approval-screen.tsx). Safe for the browser.

export interface DecisionRule {
  rule: string;
  approver_roles: readonly string[];
  requester_can_approve: boolean;
}

/** What bars this member: their role under the rule, or being the one who asked for or revised the write (four eyes). */
export type DecisionBar = { code: "role_not_allowed" } | { code: "revised_by_you" } | { code: "requested_by_you" };

/** Whether the rule lets this role decide at all (approve or refuse). */
export function roleBar(policy: DecisionRule, role: Role): DecisionBar | null {
  return policy.approver_roles.includes(role) ? null : { code: "role_not_allowed" };
}

/** Whether this member's approval counts: not when they asked for the write or revised it, unless the rule allows. */
export function selfApprovalBar(
  policy: DecisionRule,
  proposal: { requestedBy: string | null; revisedBy: string | null },
  memberId: string,
): DecisionBar | null {
  if (policy.requester_can_approve) return null;
  if (proposal.revisedBy === memberId) return { code: "revised_by_you" };
  if (proposal.requestedBy === memberId) return { code: "requested_by_you" };
  return null;
}
