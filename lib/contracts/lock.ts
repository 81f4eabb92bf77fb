import { createHash } from "node:crypto";
import { canonicalJson, plainJson } from "@/lib/canonical";
import { defaultPolicyRules } from "@/lib/policies/defaults";
import { evaluatePolicy, FALLBACK_RULE_ID } from "@/lib/policies/engine";
import { PolicyRules, type PolicyFacts } from "@/lib/policies/rules";
import { runMayHold } from "@/lib/runs/capability-rule";
import { builtinContracts } from "./builtin";
import type { Contract } from "./types";

// The catalog freeze: for each built-in role of the engine — a run
// with capabilities "read", a run with "read_write" — the tool names, versions,
// effects and approval policy it gets, committed in contracts.lock.json beside
// this file. A test rebuilds the snapshot and fails on any difference, so a new
// tool, a new version or a changed policy is a reviewed change of the lock; and
// it fails outright when a write tool has no explicit policy or a read-only role
// gains a write.
//
// Built-in tools are all reads. The writes come from the reference connector
// (CRM Acme), whose contracts Guichet derives from its reviewed tools exactly
// as for any connector; its keys are written `crm_acme.<tool>` here.

export const REFERENCE_PREFIX = "crm_acme.";

/**
 * What a typical call of each reference write does, as its proposal would
 * classify it: the facts the policy table decides on. A write tool missing here
 * has no policy in the lock, and the lock test fails.
 */
export const referenceWriteFacts: Record<string, Omit<PolicyFacts, "tool" | "effect">> = {
  commit_address_change: {
    environment: "production",
    action: "update",
    amount: null,
    records_affected: 1,
    irreversible: false,
    external_message: false,
  },
  send_email: {
    environment: "production",
    action: "message",
    amount: null,
    records_affected: 1,
    irreversible: true,
    external_message: true,
  },
  refund_payment: {
    environment: "production",
    action: "payment",
    amount: { value_minor: 1_000, currency: "EUR" },
    records_affected: 1,
    irreversible: true,
    external_message: false,
  },
  suspend_invoice_delivery: {
    environment: "production",
    action: "update",
    amount: null,
    records_affected: 12,
    irreversible: false,
    external_message: false,
  },
  // Long jobs: their describers keep the facts of an unknown write (what the job touches is known only at its end).
  suspend_all_invoice_delivery: {
    environment: "production",
    action: null,
    amount: null,
    records_affected: 1,
    irreversible: true,
    external_message: false,
  },
  cancel_job: {
    environment: "production",
    action: null,
    amount: null,
    records_affected: 1,
    irreversible: true,
    external_message: false,
  },
};

export interface LockedTool {
  tool: string;
  version: number;
  effect: "read" | "write";
  retry: Contract["retry"];
  approval: { rule: string; decision: string; approvals_required: number } | null;
}

export interface ContractsLock {
  /** SHA-256 of every published built-in contract version: a published version never changes. */
  builtin_versions: Record<string, string>;
  roles: { read: LockedTool[]; read_write: LockedTool[] };
}

export function contractFingerprint(contract: Contract): string {
  return createHash("sha256")
    .update(canonicalJson(plainJson(contract)))
    .digest("hex");
}

const policyTable = { version: 0, rules: PolicyRules.parse(defaultPolicyRules) };

function approvalOf(contract: Contract, name: string): LockedTool["approval"] {
  const facts =
    contract.effect === "read"
      ? {
          environment: "production",
          action: null,
          amount: null,
          records_affected: 0,
          irreversible: false,
          external_message: false,
        }
      : referenceWriteFacts[name];
  if (!facts) return null;
  const outcome = evaluatePolicy(policyTable, { tool: contract.key, effect: contract.effect, ...facts });
  // A write decided only by the engine's fallback has no policy of its own.
  if (contract.effect === "write" && outcome.rule === FALLBACK_RULE_ID) return null;
  return { rule: outcome.rule, decision: outcome.decision, approvals_required: outcome.approvals_required };
}

/** The snapshot to compare with the committed lock. `reference` are the reference connector's contracts. */
export function buildContractsLock(reference: Contract[]): ContractsLock {
  const current = builtinContracts.filter((e) => !e.retired).map((e) => e.contract);
  const tools = [...current, ...reference]
    .map((contract) => {
      const name = contract.mcp ? `${REFERENCE_PREFIX}${contract.mcp.tool}` : contract.key;
      return {
        tool: name,
        version: contract.version,
        effect: contract.effect,
        retry: contract.retry,
        approval: approvalOf(contract, contract.mcp?.tool ?? contract.key),
      };
    })
    .sort((a, b) => a.tool.localeCompare(b.tool));
  return {
    builtin_versions: Object.fromEntries(
      builtinContracts.map((e) => [`${e.contract.key}@${e.contract.version}`, contractFingerprint(e.contract)]),
    ),
    roles: {
      read: tools.filter((t) => runMayHold("read", t.effect)),
      read_write: tools.filter((t) => runMayHold("read_write", t.effect)),
    },
  };
}
