import { formatMoney } from "@/lib/proposals/money";
import type { ProposalObject } from "@/lib/proposals/schemas";

// How stored values read on the approval screens: addresses as one line,
// money in French, lists joined, absence as a dash. Display only — the
// decision is bound to the hash, not to this text.

export const proposalStatusLabels: Record<string, string> = {
  pending: "En attente",
  approved: "Approuvée",
  refused: "Refusée",
  expired: "Expirée",
  superseded: "Remplacée",
  revised: "Révisée",
  consumed: "Exécutée",
  withdrawn: "Retirée",
};

export const proposalStatusTones = {
  pending: "warning",
  approved: "info",
  refused: "danger",
  expired: "neutral",
  superseded: "neutral",
  revised: "neutral",
  consumed: "success",
  withdrawn: "neutral",
} as const;

const targetTypeLabels: Record<string, string> = {
  customer: "client",
  payment: "paiement",
  order: "commande",
  invoice: "facture",
};

/** "client C-2002": the service's record type in French when known, else as the service names it. */
export function targetInWords(target: NonNullable<ProposalObject["target"]>): string {
  return `${targetTypeLabels[target.type] ?? target.type} ${target.id}`;
}

export const environmentLabels: Record<string, string> = {
  production: "Production",
  sandbox: "Bac à sable",
  staging: "Préproduction",
};

const decisionErrorMessages: Record<string, string> = {
  proposal_expired: "Cette proposition a expiré : elle ne peut plus être décidée. L'agent devra proposer à nouveau.",
  proposal_not_pending: "Cette proposition a déjà été décidée.",
  proposal_superseded:
    "Cette proposition a été remplacée par une plus récente de l'agent pour le même enregistrement : décidez de celle-ci.",
  proposal_revised:
    "Une personne a modifié les arguments de cette proposition : la révision est une nouvelle proposition, décidez de celle-ci.",
  approver_not_authorized: "Votre rôle ne permet pas de décider de cette proposition.",
  self_approval_forbidden: "Vous avez demandé ou révisé cette écriture : une autre personne doit l'approuver.",
  arguments_hash_mismatch: "Les arguments ne sont plus ceux affichés : rechargez la page avant de décider.",
  already_decided: "Vous avez déjà donné votre décision ; le quorum demande des personnes distinctes.",
};

/** The reason « Refuser comme périmée » sends: the agent reads it and proposes again from a fresh read. */
export const STALE_REFUSAL_REASON =
  "Périmée : la fiche a changé depuis cette proposition. Relisez-la et proposez à nouveau si le changement est toujours voulu.";

export const STALE_NOTICE = "La fiche a changé depuis cette proposition";

/** "l’agent « Support »" / "un agent supprimé", then how its run was started. */
export function requesterInWords(requester: ProposalObject["requester"]): { agent: string; via: string } {
  const agent = requester.agent ? requester.agent.name : "Agent supprimé";
  const visitor = requester.widget?.visitor;
  const via =
    requester.source === "mcp" && requester.member
      ? // An OAuth session: a person acting through a client they consented to (« Dana Dev via Claude »).
        `${requester.member.name ?? requester.member.id} via ${requester.mcp_client?.name ?? "un client MCP"}`
      : requester.source === "widget"
        ? `Widget « ${requester.widget?.name ?? "supprimé"} » · visiteur ${visitor ? (visitor.name ?? visitor.id.replace(/^(user|anon):/, "")) : "inconnu"}`
        : requester.source === "mcp"
          ? `client MCP ${requester.mcp_client ? `${requester.mcp_client.name} ${requester.mcp_client.version}`.trim() : "inconnu"}`
          : requester.source === "api_key"
            ? `clé API « ${requester.api_key?.name ?? "supprimée"} »`
            : `console, par ${requester.member?.name ?? requester.member?.id ?? "une personne"}`;
  return { agent, via };
}

export function decisionErrorMessage(code: string, fallback: string): string {
  return decisionErrorMessages[code] ?? fallback;
}

function isMoney(value: unknown): value is { value_minor: number; currency: string } {
  return (
    typeof value === "object" &&
    value !== null &&
    typeof (value as { value_minor?: unknown }).value_minor === "number" &&
    typeof (value as { currency?: unknown }).currency === "string"
  );
}

function isAddress(
  value: unknown,
): value is { line1: string; city: string; postal_code?: string | null; country: string } {
  return (
    typeof value === "object" &&
    value !== null &&
    typeof (value as { line1?: unknown }).line1 === "string" &&
    typeof (value as { city?: unknown }).city === "string"
  );
}

export function formatValue(value: unknown): string {
  if (value === null || value === undefined || value === "") return "—";
  if (isMoney(value)) return formatMoney(value);
  if (isAddress(value))
    return [value.line1, [value.postal_code, value.city].filter(Boolean).join(" "), value.country]
      .filter(Boolean)
      .join(", ");
  if (Array.isArray(value)) return value.map(formatValue).join(", ");
  if (typeof value === "object")
    return Object.entries(value as Record<string, unknown>)
      .map(([key, item]) => `${key} : ${formatValue(item)}`)
      .join(" · ");
  if (typeof value === "boolean") return value ? "oui" : "non";
  return String(value);
}

/** "12 min 03 s", "2 h 05 min", "0 s". */
export function formatRemaining(ms: number): string {
  const total = Math.max(0, Math.floor(ms / 1000));
  const h = Math.floor(total / 3600);
  const m = Math.floor((total % 3600) / 60);
  const s = total % 60;
  if (h > 0) return `${h} h ${String(m).padStart(2, "0")} min`;
  if (m > 0) return `${m} min ${String(s).padStart(2, "0")} s`;
  return `${s} s`;
}
