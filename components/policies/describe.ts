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
  return `${rule.approvals_required} personne${rule.approvals_required > 1 ? "s distinctes" : ""} (${who})${rule.requester_can_approve ? ", le demandeur compris" : ""}`;
}

export function describeTtl(seconds: number): string {
  if (seconds % 86_400 === 0) return `${seconds / 86_400} j`;
  if (seconds % 3_600 === 0) return `${seconds / 3_600} h`;
  if (seconds % 60 === 0) return `${seconds / 60} min`;
  return `${seconds} s`;
}
