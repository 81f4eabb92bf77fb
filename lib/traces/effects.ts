import { z } from "zod";
import type { Contract } from "@/lib/contracts/types";
import { evaluatePolicy } from "@/lib/policies/engine";
import { PolicyDecisionKind, type PolicyFacts, type PolicyRule } from "@/lib/policies/rules";

// Replay of effects: a recorded call keeps the effect its tool had (read or
// write) and, when it made or committed a proposal, what the policy asked of it
// and the facts that decided (./record.ts). After a schema or policy change the
// same call is judged again — the new contract's effect, the policy table
// evaluated on the recorded facts — and every call whose effect or approval
// need moved is reported, with both sides. Validation alone would miss a read
// turned write, or a write that no longer waits for anyone.

/** The outcome and facts a proposal stores in its `policy` column (lib/proposals/service.ts). */
export const StoredPolicyFacts = z.object({
  rule: z.string(),
  decision: PolicyDecisionKind,
  approvals_required: z.number().int(),
  action: z.enum(["create", "update", "delete", "payment", "message"]).nullable(),
  external_message: z.boolean(),
});

export const RecordedPolicy = z.object({
  /** The write tool the proposal is for (a preview's proposal is its commit tool's). */
  tool: z.string(),
  rule: z.string(),
  decision: PolicyDecisionKind,
  approvals_required: z.number().int(),
  facts: z.object({
    environment: z.string(),
    action: z.enum(["create", "update", "delete", "payment", "message"]).nullable(),
    amount: z.object({ value_minor: z.number().int(), currency: z.string() }).nullable(),
    records_affected: z.number().int(),
    irreversible: z.boolean(),
    external_message: z.boolean(),
  }),
});
export type RecordedPolicy = z.infer<typeof RecordedPolicy>;

const RecordedEffects = z.object({
  effect: z.enum(["read", "write"]),
  policy: RecordedPolicy.nullable(),
  outcome: z.object({ ok: z.boolean(), code: z.string().optional() }).passthrough(),
});

export interface ApprovalNeed {
  decision: z.infer<typeof PolicyDecisionKind>;
  approvals_required: number;
}

export interface CallEffects {
  effect: "read" | "write";
  /** What a person must decide before the write runs; null for a read that made no proposal. */
  approval: ApprovalNeed | null;
}

export interface EffectChange {
  trace: string;
  run: string;
  /** Which of the two moved. */
  changed: ("effect" | "approval")[];
  recorded: CallEffects;
  now: CallEffects;
}

/** Facts of a write nobody described yet: what the engine assumes for a read turned write. */
const UNDESCRIBED: Omit<PolicyFacts, "tool" | "effect"> = {
  environment: "production",
  action: null,
  amount: null,
  records_affected: 1,
  irreversible: false,
  external_message: false,
};

/** The recorded side; null for a call recorded before effects were (nothing to compare). */
export function recordedEffects(payload: unknown): CallEffects | null {
  const parsed = RecordedEffects.safeParse(payload);
  if (!parsed.success) return null;
  const { effect, policy, outcome } = parsed.data;
  if (policy) return { effect, approval: { decision: policy.decision, approvals_required: policy.approvals_required } };
  if (outcome.code === "POLICY_DENIED") return { effect, approval: { decision: "deny", approvals_required: 0 } };
  return { effect, approval: null };
}

/**
 * The same call under `contract` and `policy` now. `policyKey` names the key
 * the policy sees for the recorded proposal's tool (its own contract's key
 * when the call is the write itself).
 */
export function effectsNow(
  contract: Pick<Contract, "key" | "effect">,
  payload: unknown,
  policy: { version: number; rules: readonly PolicyRule[] },
  policyKey: (tool: string) => string = (tool) => tool,
): CallEffects | null {
  const parsed = RecordedEffects.safeParse(payload);
  if (!parsed.success) return null;
  const recorded = parsed.data.policy;
  const need = (facts: PolicyFacts): ApprovalNeed => {
    const outcome = evaluatePolicy(policy, facts);
    return { decision: outcome.decision, approvals_required: outcome.approvals_required };
  };
  if (recorded) {
    // The proposal's write: the call's own tool when it is the write, else (a preview) the tool it proposed for.
    const key = parsed.data.effect === "write" ? contract.key : policyKey(recorded.tool);
    const effect = parsed.data.effect === "write" ? contract.effect : "write";
    const approval = effect === "write" ? need({ tool: key, effect, ...recorded.facts }) : null;
    return { effect: contract.effect, approval };
  }
  if (contract.effect === "read") return { effect: "read", approval: null };
  if (parsed.data.effect === "write") return { effect: "write", approval: recordedEffects(payload)!.approval };
  // A read turned write: it would now make a proposal, decided on facts nobody described.
  return { effect: "write", approval: need({ tool: contract.key, effect: "write", ...UNDESCRIBED }) };
}

const same = (a: ApprovalNeed | null, b: ApprovalNeed | null) =>
  a === b || (a !== null && b !== null && a.decision === b.decision && a.approvals_required === b.approvals_required);

/** Every recorded call whose effect or approval need is not what it was. */
export function effectChanges(
  contract: Pick<Contract, "key" | "effect">,
  calls: readonly { trace: string; run: string; payload: unknown }[],
  policy: { version: number; rules: readonly PolicyRule[] },
  policyKey?: (tool: string) => string,
): { checked: number; changes: EffectChange[] } {
  let checked = 0;
  const changes: EffectChange[] = [];
  for (const call of calls) {
    const recorded = recordedEffects(call.payload);
    const now = effectsNow(contract, call.payload, policy, policyKey);
    if (!recorded || !now) continue;
    checked++;
    const changed: EffectChange["changed"] = [];
    if (recorded.effect !== now.effect) changed.push("effect");
    if (!same(recorded.approval, now.approval)) changed.push("approval");
    if (changed.length > 0) changes.push({ trace: call.trace, run: call.run, changed, recorded, now });
  }
  return { checked, changes };
}
