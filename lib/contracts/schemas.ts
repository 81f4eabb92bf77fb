import { z } from "zod";

// Tool contracts' zod schemas and types: safe for the browser (no server import).

export const ContractParams = z.strictObject({ key: z.string().min(1).max(200) });
export const ContractQuery = z.strictObject({ version: z.coerce.number().int().min(1).max(1_000_000).optional() });

const JsonSchemaObject = z.record(z.string(), z.unknown());

export const ContractObject = z.object({
  key: z.string(),
  version: z.number().int(),
  kind: z.enum(["native", "data", "mcp"]),
  input_schema: JsonSchemaObject,
  output_schema: JsonSchemaObject,
  effect: z.enum(["read", "write"]),
  retry: z.enum(["safe", "idempotent", "never"]),
  idempotency: z.object({ key_field: z.string() }).nullable(),
  preview: z.string().nullable(),
  target: z.object({ type: z.string(), id_pointer: z.string(), version_pointer: z.string().nullable() }).nullable(),
  status_tool: z.string().nullable(),
  timeout_ms: z.number().int(),
  max_argument_bytes: z.number().int(),
  result_view: z.array(z.string()),
  cancellation: z.enum(["abort", "not_interruptible", "cancel_tool"]),
  mcp: z.object({ server_id: z.number().int(), tool: z.string() }).nullable(),
  /** A write the service accepts at once and finishes later (absent for every other tool). */
  long_running: z
    .object({ id_field: z.string(), status_tool: z.string(), cancel_tool: z.string().nullable() })
    .optional(),
  retired: z.boolean(),
  versions: z.array(z.object({ version: z.number().int(), published_at: z.string().nullable(), retired: z.boolean() })),
});
export type ContractObject = z.infer<typeof ContractObject>;

/** A contract as stored in its JSON column: the object above without the registry's `retired` and `versions`. */
export const StoredContract = ContractObject.omit({ retired: true, versions: true });
