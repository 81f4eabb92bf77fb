import { z } from "zod";
import { unavailabilityReasons } from "./reasons";

// The catalog's zod schemas and types: safe for the browser (no server import).

const reasonCodes = Object.keys(unavailabilityReasons) as [
  keyof typeof unavailabilityReasons,
  ...(keyof typeof unavailabilityReasons)[],
];

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

const JsonSchemaObject = z.record(z.string(), z.unknown());

export const CatalogToolObject = CatalogEntryObject.extend({
  /** JSON Schema of the arguments; null while the tool has no published contract yet. */
  input_schema: JsonSchemaObject.nullable(),
  output_schema: JsonSchemaObject.nullable(),
});
export type CatalogToolObject = z.infer<typeof CatalogToolObject>;

export const CatalogToolParams = z.strictObject({ key: z.string().min(1).max(200) });
