import type { McpServerObject } from "@/lib/mcp/api";

export const authLabels: Record<McpServerObject["auth"], string> = {
  none: "Aucune",
  org_token: "Jeton de l’organisation",
  per_user_token: "Jeton par membre",
  oauth: "OAuth (par membre)",
};

type SyncErrorCode = NonNullable<McpServerObject["last_sync_error"]>["code"];

export const syncErrorLabels: Record<SyncErrorCode, string> = {
  url_not_allowed: "Adresse refusée par les règles réseau (SSRF)",
  unreachable: "Serveur injoignable",
  timeout: "Le serveur n’a pas répondu à temps",
  unauthorized: "Le serveur a refusé les identifiants",
  protocol: "Le serveur ne répond pas comme un serveur MCP",
};

export const dateFormat = new Intl.DateTimeFormat("fr-FR", { dateStyle: "medium", timeStyle: "short" });
