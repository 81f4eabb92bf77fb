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

const JsonSchemaObject = z.record(z.string(), z.unknown());

export const CatalogToolObject = CatalogEntryObject.extend({
  /** JSON Schema of the arguments; null while the tool has no published contract yet. */
  input_schema: JsonSchemaObject.nullable(),
  output_schema: JsonSchemaObject.nullable(),
});
export type CatalogToolObject = z.infer<typeof CatalogToolObject>;

export const CatalogToolParams = z.strictObject({ key: z.string().min(1).max(200) });

export const getToolEndpoint = defineEndpoint({
  method: "GET", path: "/v1/tools/{key}", tag: "Tools", summary: "One catalog entry with its input and output schemas",
  auth: "both", scopes: ["tools:read", "agents:read", "runs:read"], params: CatalogToolParams,
  response: z.object({ data: CatalogToolObject }), errors: ["not_found"],
});
