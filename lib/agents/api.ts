import { z } from "zod";
import { defineEndpoint } from "@/lib/http/endpoint";
import { ListQuery } from "@/lib/http/validation";
import { FileObject } from "@/lib/files/api";

// Limits of seed 002 ("Agents et outils"), binding.
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

const agentFields = {
  name: z.string().trim().min(1).max(agentLimits.name),
  instructions: z.string().max(agentLimits.instructions).nullable(),
  model: z.string().min(1).max(64).nullable().meta({ description: "A model id from GET /v1/models; null: the plan's default model." }),
  temperature: z.number().min(0).max(2).meta({ description: "0 to 2, rounded half-up to two decimals on its decimal digits (0.125 → 0.13)." }),
  // The limit of 40 applies once forced tools and duplicates are removed (checked by the service).
  tools: z.array(z.string().min(1).max(200)).max(100),
  active: z.boolean(),
  output_schema: JsonSchemaObject.nullable(),
  client_tools: z.array(ClientToolDefinition).max(agentLimits.clientTools).nullable(),
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
});
export type AgentCreateBody = z.infer<typeof AgentCreateBody>;

export const AgentUpdateBody = AgentCreateBody.partial();
export type AgentUpdateBody = z.infer<typeof AgentUpdateBody>;

export const AgentParams = z.strictObject({ agent: z.string().min(1).max(64) });
export const AgentDocumentParams = z.strictObject({ agent: z.string().min(1).max(64), file: z.string().min(1).max(64) });

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
  unavailable_tools: z.array(z.string()).meta({ description: "Keys of `tools` that are unavailable now; runs go on without them, with a warning." }),
  created_at: z.string(),
  updated_at: z.string(),
});
export type AgentObject = z.infer<typeof AgentObject>;

const Deleted = z.object({ data: z.object({ id: z.string(), deleted: z.literal(true) }) });

const readScopes = ["agents:read", "runs:read"] as const;
const writeScopes = ["agents:write"] as const;
const tag = "Agents";

export const listAgentsEndpoint = defineEndpoint({
  method: "GET", path: "/v1/agents", tag, summary: "List the organization's agents, newest first",
  auth: "both", scopes: [...readScopes], query: ListQuery,
  response: z.object({ data: z.array(AgentObject), next_cursor: z.string().nullable() }),
});

export const createAgentEndpoint = defineEndpoint({
  method: "POST", path: "/v1/agents", tag, summary: "Create an agent",
  auth: "both", scopes: [...writeScopes], body: AgentCreateBody, status: 201,
  response: z.object({ data: AgentObject }),
  errors: ["agent_name_taken", "model_unavailable", "unknown_tool", "tool_unavailable", "output_schema_unsupported", "quota_exceeded"],
});

export const getAgentEndpoint = defineEndpoint({
  method: "GET", path: "/v1/agents/{agent}", tag, summary: "Retrieve an agent",
  auth: "both", scopes: [...readScopes], params: AgentParams,
  response: z.object({ data: AgentObject }), errors: ["not_found"],
});

export const updateAgentEndpoint = defineEndpoint({
  method: "PATCH", path: "/v1/agents/{agent}", tag, summary: "Update an agent; only the fields sent change",
  auth: "both", scopes: [...writeScopes], params: AgentParams, body: AgentUpdateBody,
  response: z.object({ data: AgentObject }),
  errors: ["not_found", "agent_name_taken", "model_unavailable", "unknown_tool", "tool_unavailable", "output_schema_unsupported"],
});

export const deleteAgentEndpoint = defineEndpoint({
  method: "DELETE", path: "/v1/agents/{agent}", tag, summary: "Delete an agent with its knowledge documents and their bytes; its runs, steps and proposals are kept, with `agent: null`",
  auth: "both", scopes: [...writeScopes], params: AgentParams, response: Deleted, errors: ["not_found"],
});

export const listDocumentsEndpoint = defineEndpoint({
  method: "GET", path: "/v1/agents/{agent}/documents", tag, summary: "List an agent's knowledge documents",
  auth: "both", scopes: [...readScopes], params: AgentParams, query: ListQuery,
  response: z.object({ data: z.array(FileObject), next_cursor: z.string().nullable() }), errors: ["not_found"],
});

export const uploadDocumentEndpoint = defineEndpoint({
  method: "POST", path: "/v1/agents/{agent}/documents", tag, summary: "Upload a knowledge document (multipart, one field `file`)",
  auth: "both", scopes: [...writeScopes], params: AgentParams, multipart: true, status: 201,
  response: z.object({ data: FileObject }),
  errors: ["not_found", "too_many_documents", "storage_quota_exceeded", "file_too_large", "unsupported_file_type", "unsupported_media_type"],
});

export const deleteDocumentEndpoint = defineEndpoint({
  method: "DELETE", path: "/v1/agents/{agent}/documents/{file}", tag, summary: "Delete a knowledge document and its bytes",
  auth: "both", scopes: [...writeScopes], params: AgentDocumentParams, response: Deleted, errors: ["not_found"],
});
