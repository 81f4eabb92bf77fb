import { MANAGER_ROLES } from "@/lib/auth/scopes";
import { z } from "zod";
import { defineEndpoint } from "@/lib/http/endpoint";

export const PrivateOriginsObject = z.object({
  origins: z.array(z.string()).meta({
    description:
      "Origins (scheme://host:port) granted to the caller's organization: its MCP servers, webhooks, model providers and the search backend may use them on loopback or a private network. Origins granted to other organizations are not listed.",
  }),
  applies_to: z.array(z.enum(["mcp_servers", "search_backend", "model_providers"])),
});

export const listPrivateOriginsEndpoint = defineEndpoint({
  method: "GET",
  path: "/v1/network/private_origins",
  tag: "Network",
  summary:
    "The private origins granted to the caller's organization (read-only: set by GUICHET_PRIVATE_ORIGINS, never by an organization)",
  auth: "session",
  roles: [...MANAGER_ROLES],
  response: z.object({ data: PrivateOriginsObject }),
});
