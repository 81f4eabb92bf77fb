import { z } from "zod";

// The agents' zod schemas and types: safe for the browser (no server import).

// The product's limits for an agent: the API refuses past them.
export const agentLimits = {
  name: 100,
  instructions: 20_000,
  tools: 40,
  clientTools: 20,
  clientToolDescription: 1024,
  documents: 20,
} as const;

/** An object that must be a JSON Schema; its compilation is checked by the service. */
const JsonSchemaObject = z.record(z.string(), z.unknown()).meta({ description: "A JSON Schema (2020-12) object." });

export const ClientToolDefinition = z.strictObject({
  name: z.string().regex(/^[a-zA-Z0-9_-]{1,64}$/, "1 to 64 letters, digits, _ or -."),
  description: z.string().min(1).max(agentLimits.clientToolDescription),
  parameters: JsonSchemaObject,
});
export type ClientToolDefinition = z.infer<typeof ClientToolDefinition>;

export const AgentTrace = z.enum(["off", "redacted"]).meta({
  description:
    "off: no trace. redacted: each run keeps a trace (catalog, calls with redacted arguments and results, validation and approval decisions, final answer) for replaying calls against other contract versions. Only owners and admins change it.",
});
export type AgentTrace = z.infer<typeof AgentTrace>;

const agentFields = {
  name: z.string().trim().min(1).max(agentLimits.name),
  instructions: z.string().max(agentLimits.instructions).nullable(),
  model: z
    .string()
    .min(1)
    .max(64)
    .nullable()
    .meta({ description: "A model id from GET /v1/models; null: the plan's default model." }),
  temperature: z
    .number()
    .min(0)
    .max(2)
    .meta({ description: "0 to 2, rounded half-up to two decimals on its decimal digits (0.125 → 0.13)." }),
  // The limit of 40 applies once forced tools and duplicates are removed (checked by the service).
  tools: z.array(z.string().min(1).max(200)).max(100),
  active: z.boolean(),
  output_schema: JsonSchemaObject.nullable(),
  client_tools: z.array(ClientToolDefinition).max(agentLimits.clientTools).nullable(),
  trace: AgentTrace,
};

export const AgentCreateBody = z.strictObject({
  name: agentFields.name,
  instructions: agentFields.instructions.optional(),
  model: agentFields.model.optional(),
  temperature: agentFields.temperature.optional(),
  tools: agentFields.tools.optional(),
  active: agentFields.active.optional(),
  output_schema: agentFields.output_schema.optional(),
  client_tools: agentFields.client_tools.optional(),
  trace: agentFields.trace.optional(),
});
export type AgentCreateBody = z.infer<typeof AgentCreateBody>;

export const AgentUpdateBody = AgentCreateBody.partial();
export type AgentUpdateBody = z.infer<typeof AgentUpdateBody>;

export const AgentParams = z.strictObject({ agent: z.string().min(1).max(64) });
export const AgentDocumentParams = z.strictObject({
  agent: z.string().min(1).max(64),
  file: z.string().min(1).max(64),
});

export const AgentObject = z.object({
  id: z.string(),
  name: z.string(),
  instructions: z.string().nullable(),
  model: z.string().nullable(),
  temperature: z.number(),
  tools: z.array(z.string()),
  active: z.boolean(),
  output_schema: z.record(z.string(), z.unknown()).nullable(),
  client_tools: z.array(ClientToolDefinition),
  trace: AgentTrace,
  unavailable_tools: z
    .array(z.string())
    .meta({ description: "Keys of `tools` that are unavailable now; runs go on without them, with a warning." }),
  created_at: z.string(),
  updated_at: z.string(),
});
export type AgentObject = z.infer<typeof AgentObject>;
