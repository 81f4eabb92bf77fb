import { z } from "zod";
import { defineEndpoint } from "@/lib/http/endpoint";
import { unavailabilityReasons } from "./reasons";

const reasonCodes = Object.keys(unavailabilityReasons) as [keyof typeof unavailabilityReasons, ...(keyof typeof unavailabilityReasons)[]];

export const CatalogEntryObject = z.object({
  key: z.string(),
  label: z.string(),
  description: z.string(),
  kind: z.enum(["native", "data", "mcp"]),
  forced: z.boolean(),
  available: z.boolean(),
  reason: z.object({ code: z.enum(reasonCodes), message: z.string() }).nullable(),
  server: z.object({ id: z.number().int(), name: z.string() }).nullable(),
  writes_data: z.boolean(),
});

export const listToolsEndpoint = defineEndpoint({
  method: "GET", path: "/v1/tools", tag: "Tools", summary: "The tool catalog: what the organization can put on an agent, and why the rest is refused",
  auth: "both", scopes: ["tools:read", "agents:read", "runs:read"],
  response: z.object({ data: z.array(CatalogEntryObject), next_cursor: z.null() }),
});
