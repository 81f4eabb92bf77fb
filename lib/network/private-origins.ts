import "server-only";
import { privateOriginsFor } from "@/lib/net/origin-grants";

// The private origins granted to one organization, as its admins see them. Only
// destinations an admin chose (MCP servers, webhooks, the search backend, model
// providers) may use these origins on loopback or a private network; a URL chosen
// by a model or an API caller never may. The grants live in the server's
// environment (GUICHET_PRIVATE_ORIGINS): no organization can add to them, and
// none sees the origins granted to another.

export interface PrivateOrigins {
  origins: string[];
  applies_to: ("mcp_servers" | "search_backend" | "model_providers")[];
}

export async function privateOrigins(organizationId: string): Promise<PrivateOrigins> {
  return {
    origins: [...(await privateOriginsFor(organizationId))],
    applies_to: ["mcp_servers", "search_backend", "model_providers"],
  };
}
