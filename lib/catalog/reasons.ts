// Why a catalog entry is unavailable: stable codes, an English message
// for API clients, and the words the console shows. `{setting}` stands for
// the server setting a `not_configured` tool needs.

export const unavailabilityReasons = {
  plan_feature_missing: {
    message: "Your plan does not include structured data.",
    fr: "Votre formule n’inclut pas les données structurées.",
  },
  not_configured: {
    message: "This tool needs {setting}, which is not set on this server.",
    fr: "Cet outil a besoin du réglage {setting}, que l’opérateur n’a pas défini sur ce serveur.",
  },
  mcp_per_user_credentials: {
    message: "This connector uses a token per member; an API run has no member.",
    fr: "Ce connecteur utilise un jeton par membre : un run API n’a pas de membre derrière lui.",
  },
  mcp_oauth_credentials: {
    message: "This connector signs each member in with OAuth; an API run has no member.",
    fr: "Ce connecteur connecte chaque membre par OAuth : un run API n’a pas de membre derrière lui.",
  },
  mcp_member_not_connected: {
    message: "This connector acts as each member: connect your own account first ({connect_url}).",
    fr: "Ce connecteur agit en votre nom : connectez d’abord votre compte.",
  },
  mcp_server_inactive: { message: "This MCP connector is inactive.", fr: "Le connecteur MCP est désactivé." },
  mcp_tool_disabled: {
    message: "This tool is disabled in your MCP settings.",
    fr: "Cet outil est désactivé dans vos réglages MCP.",
  },
  mcp_tool_needs_review: {
    message: "This tool is new or changed since its last review; a person must review it.",
    fr: "Cet outil est nouveau ou a changé depuis sa dernière revue : une personne doit le revoir.",
  },
} as const;

export type UnavailabilityCode = keyof typeof unavailabilityReasons;

const SETTING = /\bGUICHET_[A-Z0-9_]+\b/;

export function reason(code: UnavailabilityCode, setting?: string): { code: UnavailabilityCode; message: string } {
  return { code, message: unavailabilityReasons[code].message.replace("{setting}", setting ?? "a setting") };
}

/** Codes a run without a member gets for a connector that acts as each member (seed 002's two). */
export const memberCredentialCodes: readonly UnavailabilityCode[] = [
  "mcp_per_user_credentials",
  "mcp_oauth_credentials",
];

/** The reason a member's run leaves out a per-member tool they have not connected, with where to connect it. */
export function memberNotConnected(connectUrl: string): {
  code: "mcp_member_not_connected";
  message: string;
  connect_url: string;
} {
  return {
    code: "mcp_member_not_connected",
    message: unavailabilityReasons.mcp_member_not_connected.message.replace("{connect_url}", connectUrl),
    connect_url: connectUrl,
  };
}

/** The console's words for a reason; a `not_configured` one names the setting its API message names. */
export function reasonFr(reason: { code: string; message: string }): string {
  const words = (unavailabilityReasons as Record<string, { fr: string } | undefined>)[reason.code]?.fr;
  if (!words) return reason.message;
  return words.replace("{setting}", reason.message.match(SETTING)?.[0] ?? "requis");
}
