import { auditActionLabels, type AuditEventObject } from "@/lib/audit/schemas";

const actions: Record<string, string> = auditActionLabels;

/** The action in French, or its code for an action this console does not know yet. */
export const actionLabel = (action: string) => actions[action] ?? action;

export const actorTypeLabels: Record<AuditEventObject["actor"]["type"], string> = {
  member: "Membre",
  api_key: "Clé API",
  system: "Guichet",
  anonymous: "Anonyme",
};

export const targetTypeLabels: Record<string, string> = {
  api_key: "Clé API",
  member: "Membre",
  invitation: "Invitation",
  policy: "Politique",
  connector: "Connecteur",
  mcp_tool: "Outil",
  agent: "Agent",
  proposal: "Proposition",
  operation: "Opération",
  webhook_endpoint: "Webhook",
  organization: "Organisation",
};

export const dateTimeFormat = new Intl.DateTimeFormat("fr-FR", { dateStyle: "medium", timeStyle: "medium" });

/** A detail's value as plain text (never HTML): lists joined, null as a dash. */
export function detailText(value: unknown): string {
  if (value === null || value === undefined) return "—";
  if (Array.isArray(value)) return value.map(String).join(", ");
  if (typeof value === "object") return JSON.stringify(value);
  return String(value);
}
