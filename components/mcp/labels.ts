import type { McpServerObject } from "@/lib/mcp/schemas";

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

/** Why a server URL was refused (SSRF rules), from the error's per-field code. */
export const urlRefusalLabels: Record<string, string> = {
  scheme: "Seules les adresses http et https sont acceptées.",
  credentials: "L’adresse ne doit pas contenir d’identifiant ni de mot de passe.",
  loopback: "Les adresses locales (loopback) ne sont pas autorisées sur cette installation.",
  private: "Les adresses de réseau privé ne sont pas autorisées sur cette installation.",
  link_local: "Les adresses link-local sont refusées.",
  metadata: "Les adresses de métadonnées cloud sont toujours refusées.",
  reserved: "Les adresses réservées, multicast ou non spécifiées sont refusées.",
  unresolvable: "Ce nom d’hôte ne se résout pas.",
};
