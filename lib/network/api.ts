import { z } from "zod";
import { defineEndpoint } from "@/lib/http/endpoint";

export const PrivateOriginsObject = z.object({
  origins: z.array(z.string()).meta({
    description:
      "Origins (scheme://host:port) that MCP servers, the search backend and model providers may use on loopback or a private network.",
  }),
  applies_to: z.array(z.enum(["mcp_servers", "search_backend", "model_providers"])),
});

export const listPrivateOriginsEndpoint = defineEndpoint({
  method: "GET",
  path: "/v1/network/private_origins",
  tag: "Network",
  summary:
    "The operator's allowlist of private origins (read-only: set by GUICHET_PRIVATE_ORIGINS, never by an organization)",
  auth: "session",
  roles: ["owner", "admin"],
  response: z.object({ data: PrivateOriginsObject }),
});
