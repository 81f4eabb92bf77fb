import { roleLabels } from "@/lib/auth/scopes";
import type { PolicyRuleObject } from "@/lib/policies/schemas";
import { formatMoney } from "@/lib/proposals/money";

// A rule's conditions and decision in words, for the table people read.

const actionLabels: Record<string, string> = {
  create: "création",
  update: "modification",
  delete: "suppression",
  payment: "paiement",
  message: "message",
};

export const decisionLabels: Record<PolicyRuleObject["decision"], string> = {
  allow: "Autoriser",
  require_approval: "Approbation",
  deny: "Refuser",
};
export const decisionTones = { allow: "success", require_approval: "warning", deny: "danger" } as const;

export function describeMatch(match: PolicyRuleObject["match"]): string[] {
  const parts: string[] = [];
  if (match.effect) parts.push(match.effect === "read" ? "lecture" : "écriture");
  if (match.tools) parts.push(`outil : ${match.tools.join(", ")}`);
  if (match.environments) parts.push(`environnement : ${match.environments.join(", ")}`);
  if (match.actions) parts.push(match.actions.map((a) => actionLabels[a] ?? a).join(" ou "));
  if (match.amount_at_least) {
    parts.push(
      `montant ≥ ${Object.entries(match.amount_at_least)
        .map(([currency, value]) => formatMoney({ value_minor: value, currency }))
        .join(" / ")}`,
    );
  }
  if (match.records_at_least !== undefined)
    parts.push(`≥ ${match.records_at_least.toLocaleString("fr-FR")} enregistrements`);
  if (match.irreversible !== undefined) parts.push(match.irreversible ? "irréversible" : "réversible");
  if (match.external_message !== undefined)
    parts.push(match.external_message ? "message externe" : "sans message externe");
  return parts.length ? parts : ["toute opération"];
}

export function describeApprovers(rule: PolicyRuleObject): string {
  if (rule.decision !== "require_approval") return "—";
  const who = rule.approver_roles.map((r) => roleLabels[r]).join(", ");
  const escalation =
    rule.escalate_after_seconds !== undefined && rule.escalate_to_roles?.length
      ? ` ; sans décision après ${describeTtl(rule.escalate_after_seconds)}, escaladée à : ${rule.escalate_to_roles.map((r) => roleLabels[r]).join(", ")}`
      : "";
  return `${rule.approvals_required} personne${rule.approvals_required > 1 ? "s distinctes" : ""} (${who})${rule.requester_can_approve ? ", le demandeur compris" : ""}${escalation}`;
}

export function describeTtl(seconds: number): string {
  if (seconds % 86_400 === 0) return `${seconds / 86_400} j`;
  if (seconds % 3_600 === 0) return `${seconds / 3_600} h`;
  if (seconds % 60 === 0) return `${seconds / 60} min`;
  return `${seconds} s`;
}

const decisionWords: Record<string, string> = {
  allow: "passe",
  require_approval: "attend une approbation",
  deny: "refusée",
};

/** A kind of difference (lib/policies/compare.ts) in words: "allow -> deny" → "passe → refusée". */
export function describeDifference(kind: string): string {
  const decision = /^(\w+) -> (\w+)$/.exec(kind);
  if (decision) return `${decisionWords[decision[1]] ?? decision[1]} → ${decisionWords[decision[2]] ?? decision[2]}`;
  const quorum = /^quorum (\d+) -> (\d+)$/.exec(kind);
  if (quorum) return `quorum ${quorum[1]} → ${quorum[2]}`;
  const other: Record<string, string> = {
    approver_roles: "autres rôles approbateurs",
    requester_can_approve: "le demandeur peut approuver ou non",
    ttl_seconds: "autre délai d’expiration",
    escalation: "autre escalade",
  };
  return other[kind] ?? kind;
}
