import "server-only";
import { env } from "@/lib/env";

// The operator's allowlist, as organizations see it. Only destinations an admin
// chose (MCP servers, the search backend, model providers) may use these origins on loopback or a
// private network; a URL chosen by a model or an API caller never may, and no
// organization can add to the list: it lives in the server's environment.

export interface PrivateOrigins {
  origins: string[];
  applies_to: ("mcp_servers" | "search_backend" | "model_providers")[];
}

export function privateOrigins(): PrivateOrigins {
  return { origins: [...env.privateOrigins], applies_to: ["mcp_servers", "search_backend", "model_providers"] };
}
