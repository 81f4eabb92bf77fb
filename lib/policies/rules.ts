import { z } from "zod";
import { Role } from "@/lib/auth/scopes";

// The policy table's vocabulary: ordered rules, each a set of conditions on the
// consequences of a tool call (never on its prompt) and a decision. Written
// once in zod: it validates PUT /v1/policies, types the engine and documents
// the OpenAPI schema.

/** What a write does, as the trusted code that built the proposal classifies it. */
export const PolicyAction = z.enum(["create", "update", "delete", "payment", "message"]);
export type PolicyAction = z.infer<typeof PolicyAction>;

export const PolicyDecisionKind = z.enum(["allow", "require_approval", "deny"]);
export type PolicyDecisionKind = z.infer<typeof PolicyDecisionKind>;

/** Roles that may be named approvers: a viewer only reads, so it never approves. */
export const ApproverRole = Role.exclude(["viewer"]);
export type ApproverRole = z.infer<typeof ApproverRole>;

export const Currency = z.string().regex(/^[A-Z]{3}$/, "must be an ISO 4217 code such as EUR");

/** `mcp_*_send_email`: exact tool keys, or patterns where `*` stands for any run of characters. */
const ToolPattern = z.string().regex(/^[A-Za-z0-9_.*@-]{1,200}$/, "letters, digits, _ . - @ and * only");

export const PolicyMatch = z.strictObject({
  tools: z.array(ToolPattern).min(1).max(50).optional(),
  effect: z.enum(["read", "write"]).optional(),
  environments: z
    .array(z.string().regex(/^[a-z][a-z0-9_-]{0,39}$/))
    .min(1)
    .max(10)
    .optional(),
  actions: z.array(PolicyAction).min(1).max(PolicyAction.options.length).optional(),
  /** Per currency, in minor units: matches an amount in a listed currency at or above its threshold. */
  amount_at_least: z
    .record(Currency, z.number().int().min(0).max(Number.MAX_SAFE_INTEGER))
    .refine((thresholds) => Object.keys(thresholds).length > 0, "give a threshold for at least one currency")
    .optional(),
  records_at_least: z.number().int().min(1).max(1_000_000_000).optional(),
  irreversible: z.boolean().optional(),
  external_message: z.boolean().optional(),
});
export type PolicyMatch = z.infer<typeof PolicyMatch>;

export const TTL_MIN_SECONDS = 60;
export const TTL_MAX_SECONDS = 7 * 24 * 3600;
export const MAX_APPROVALS = 5;

export const PolicyRule = z
  .strictObject({
    id: z.string().regex(/^[a-z0-9][a-z0-9-]{0,62}$/, "lowercase letters, digits and dashes (e.g. large-payments)"),
    description: z.string().trim().max(300).default(""),
    match: PolicyMatch.default({}),
    decision: PolicyDecisionKind,
    approvals_required: z.number().int().min(0).max(MAX_APPROVALS).optional(),
    approver_roles: z.array(ApproverRole).max(ApproverRole.options.length).optional(),
    ttl_seconds: z.number().int().min(TTL_MIN_SECONDS).max(TTL_MAX_SECONDS).default(3600),
    /** Off by default: the person who drove the run does not approve their own write. */
    requester_can_approve: z.boolean().default(false),
    /** A proposal still undecided this long after it was made notifies `escalate_to_roles` (once). */
    escalate_after_seconds: z.number().int().min(1).max(TTL_MAX_SECONDS).optional(),
    escalate_to_roles: z.array(ApproverRole).min(1).max(ApproverRole.options.length).optional(),
  })
  .superRefine((rule, ctx) => {
    checkEscalation(rule, ctx);
    if (rule.decision === "require_approval") {
      if (rule.approvals_required === undefined || rule.approvals_required < 1) {
        ctx.addIssue({
          code: "custom",
          path: ["approvals_required"],
          message: "An approval rule needs at least one approval.",
        });
      }
      if (!rule.approver_roles || rule.approver_roles.length === 0) {
        ctx.addIssue({
          code: "custom",
          path: ["approver_roles"],
          message: "Name at least one role allowed to approve.",
        });
      }
    } else {
      if (rule.approvals_required)
        ctx.addIssue({
          code: "custom",
          path: ["approvals_required"],
          message: `A rule that decides "${rule.decision}" takes no approvals.`,
        });
      if (rule.approver_roles?.length)
        ctx.addIssue({
          code: "custom",
          path: ["approver_roles"],
          message: `A rule that decides "${rule.decision}" names no approvers.`,
        });
    }
  })
  .transform((rule) => ({
    ...rule,
    approvals_required: rule.approvals_required ?? 0,
    approver_roles: [...new Set(rule.approver_roles ?? [])],
  }));
export type PolicyRuleInput = z.input<typeof PolicyRule>;

/**
 * Escalation notifies a second group among those the row already lets decide, before the expiry:
 * it widens who is told, never who may approve, and silence past it is still never consent.
 */
function checkEscalation(
  rule: {
    decision: PolicyDecisionKind;
    ttl_seconds: number;
    approver_roles?: readonly string[];
    escalate_after_seconds?: number;
    escalate_to_roles?: readonly string[];
  },
  ctx: z.RefinementCtx,
) {
  const { escalate_after_seconds: after, escalate_to_roles: roles } = rule;
  if (after === undefined && roles === undefined) return;
  const issue = (path: string, message: string) => ctx.addIssue({ code: "custom", path: [path], message });
  if (rule.decision !== "require_approval")
    return issue("escalate_after_seconds", "Only a require_approval rule escalates.");
  if (after === undefined) return issue("escalate_after_seconds", "Say after how many seconds to escalate.");
  if (roles === undefined) return issue("escalate_to_roles", "Name the roles to notify on escalation.");
  if (after >= rule.ttl_seconds)
    issue("escalate_after_seconds", `Escalate before the proposal expires (ttl_seconds is ${rule.ttl_seconds}).`);
  const outside = roles.filter((role) => !(rule.approver_roles ?? []).includes(role));
  if (outside.length > 0)
    issue("escalate_to_roles", `Escalate only to roles the rule lets approve (not ${outside.join(", ")}).`);
}
export type PolicyRule = z.output<typeof PolicyRule>;

export const MAX_RULES = 100;

export const PolicyRules = z
  .array(PolicyRule)
  .min(1)
  .max(MAX_RULES)
  .superRefine((rules, ctx) => {
    const seen = new Map<string, number>();
    rules.forEach((rule, index) => {
      if (seen.has(rule.id))
        ctx.addIssue({
          code: "custom",
          path: [index, "id"],
          message: `Duplicate rule id "${rule.id}" (also row ${seen.get(rule.id)! + 1}).`,
        });
      else seen.set(rule.id, index);
    });
  });

/** The facts a decision is taken on, computed by trusted code from the canonical call. */
export interface PolicyFacts {
  tool: string;
  effect: "read" | "write";
  environment: string;
  action: PolicyAction | null;
  amount: { value_minor: number; currency: string } | null;
  records_affected: number;
  irreversible: boolean;
  external_message: boolean;
}

/** The outcome, as stored on a proposal: the rule that decided and what it asks for. */
export const PolicyOutcome = z.object({
  rule: z.string(),
  description: z.string(),
  policy_version: z.number().int(),
  decision: PolicyDecisionKind,
  approvals_required: z.number().int(),
  approver_roles: z.array(ApproverRole),
  ttl_seconds: z.number().int(),
  requester_can_approve: z.boolean(),
  escalate_after_seconds: z.number().int().optional(),
  escalate_to_roles: z.array(ApproverRole).optional(),
});
export type PolicyOutcome = z.infer<typeof PolicyOutcome>;
