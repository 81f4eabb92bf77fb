import { z } from "zod";
import { defineEndpoint } from "@/lib/http/endpoint";
import { CatalogEntryObject, CatalogToolObject, CatalogToolParams } from "./schemas";

export * from "./schemas";

export const listToolsEndpoint = defineEndpoint({
  method: "GET",
  path: "/v1/tools",
  tag: "Tools",
  summary: "The tool catalog: what the organization can put on an agent, and why the rest is refused",
  auth: "both",
  scopes: ["tools:read", "agents:read", "runs:read"],
  response: z.object({ data: z.array(CatalogEntryObject), next_cursor: z.null() }),
});

export const getToolEndpoint = defineEndpoint({
  method: "GET",
  path: "/v1/tools/{key}",
  tag: "Tools",
  summary: "One catalog entry with its input and output schemas",
  auth: "both",
  scopes: ["tools:read", "agents:read", "runs:read"],
  params: CatalogToolParams,
  response: z.object({ data: CatalogToolObject }),
  errors: ["not_found"],
});
