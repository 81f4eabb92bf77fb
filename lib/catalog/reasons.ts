// Why a catalog entry is unavailable: stable codes, an English message
// for API clients, and the words the console shows.

export const unavailabilityReasons = {
  plan_feature_missing: {
    message: "Your plan does not include structured data.",
    fr: "Votre formule n’inclut pas les données structurées.",
  },
  mcp_per_user_credentials: {
    message: "This connector uses a token per member; an API run has no member.",
    fr: "Ce connecteur utilise un jeton par membre : un run API n’a pas de membre derrière lui.",
  },
  mcp_oauth_credentials: {
    message: "This connector signs each member in with OAuth; an API run has no member.",
    fr: "Ce connecteur connecte chaque membre par OAuth : un run API n’a pas de membre derrière lui.",
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

export function reason(code: UnavailabilityCode): { code: UnavailabilityCode; message: string } {
  return { code, message: unavailabilityReasons[code].message };
}
