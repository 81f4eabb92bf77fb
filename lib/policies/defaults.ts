import type { PolicyRuleInput } from "./rules";

// The table every organization starts with. Reads pass; reversible
// sandbox drafts pass; payments, deletes, external messages and bulk changes
// wait for people, two of them above a threshold. Nothing here lets a
// production write through: a developer who wants an MCP write tool to run
// directly adds an explicit `allow` row naming it.

const approvers = ["owner", "admin", "approver"] as const;
const seniors = ["owner", "admin"] as const;

/** Payments at or above 100.00 in these currencies need two people. */
export const LARGE_PAYMENT_MINOR = 10_000;
/** Changes touching this many records or more need two people. */
export const LARGE_BULK_RECORDS = 10;

export const defaultPolicyRules: PolicyRuleInput[] = [
  { id: "reads", description: "Les lectures passent sans décision.", match: { effect: "read" }, decision: "allow" },
  {
    id: "sandbox-drafts",
    description: "Brouillons réversibles dans le bac à sable : aucune décision humaine.",
    match: { effect: "write", environments: ["sandbox"], irreversible: false, external_message: false },
    decision: "allow",
  },
  {
    id: "large-payments",
    description: "Paiements et remboursements de 100 ou plus : deux personnes, administrateurs.",
    match: {
      actions: ["payment"],
      amount_at_least: {
        EUR: LARGE_PAYMENT_MINOR,
        USD: LARGE_PAYMENT_MINOR,
        GBP: LARGE_PAYMENT_MINOR,
        CHF: LARGE_PAYMENT_MINOR,
      },
    },
    decision: "require_approval",
    approvals_required: 2,
    approver_roles: [...seniors],
    ttl_seconds: 1800,
  },
  {
    id: "payments",
    description: "Tout paiement ou remboursement demande une approbation.",
    match: { actions: ["payment"] },
    decision: "require_approval",
    approvals_required: 1,
    approver_roles: [...approvers],
    ttl_seconds: 3600,
  },
  {
    id: "large-bulk",
    description: `Modifications de ${LARGE_BULK_RECORDS} enregistrements ou plus : deux personnes.`,
    match: { effect: "write", records_at_least: LARGE_BULK_RECORDS },
    decision: "require_approval",
    approvals_required: 2,
    approver_roles: [...approvers],
    ttl_seconds: 3600,
  },
  {
    id: "deletes",
    description: "Toute suppression demande une approbation.",
    match: { actions: ["delete"] },
    decision: "require_approval",
    approvals_required: 1,
    approver_roles: [...approvers],
    ttl_seconds: 3600,
  },
  {
    id: "bulk",
    description: "Modifications de plusieurs enregistrements : une approbation.",
    match: { effect: "write", records_at_least: 2 },
    decision: "require_approval",
    approvals_required: 1,
    approver_roles: [...approvers],
    ttl_seconds: 3600,
  },
  {
    id: "external-messages",
    description: "Tout message envoyé hors de l'organisation demande une approbation.",
    match: { external_message: true },
    decision: "require_approval",
    approvals_required: 1,
    approver_roles: [...approvers],
    ttl_seconds: 3600,
  },
  {
    id: "writes",
    description:
      "Toute autre écriture demande une approbation ; une écriture directe exige une ligne « allow » qui la nomme.",
    match: { effect: "write" },
    decision: "require_approval",
    approvals_required: 1,
    approver_roles: [...approvers],
    ttl_seconds: 3600,
  },
];
