import { z } from "zod";
import { defineEndpoint } from "@/lib/http/endpoint";
import { ListQuery } from "@/lib/http/list-query";
import { FileObject } from "@/lib/files/schemas";
import { AgentCreateBody, AgentDocumentParams, AgentObject, AgentParams, AgentUpdateBody } from "./schemas";

export * from "./schemas";

const Deleted = z.object({ data: z.object({ id: z.string(), deleted: z.literal(true) }) });

const readScopes = ["agents:read", "runs:read"] as const;
const writeScopes = ["agents:write"] as const;
const tag = "Agents";

export const listAgentsEndpoint = defineEndpoint({
  method: "GET",
  path: "/v1/agents",
  tag,
  summary: "List the organization's agents, newest first",
  auth: "both",
  scopes: [...readScopes],
  query: ListQuery,
  response: z.object({ data: z.array(AgentObject), next_cursor: z.string().nullable() }),
});

export const createAgentEndpoint = defineEndpoint({
  method: "POST",
  path: "/v1/agents",
  tag,
  summary: "Create an agent",
  auth: "both",
  scopes: [...writeScopes],
  body: AgentCreateBody,
  status: 201,
  response: z.object({ data: AgentObject }),
  errors: [
    "agent_name_taken",
    "model_unavailable",
    "unknown_tool",
    "tool_unavailable",
    "output_schema_unsupported",
    "quota_exceeded",
    "forbidden",
  ],
});

export const getAgentEndpoint = defineEndpoint({
  method: "GET",
  path: "/v1/agents/{agent}",
  tag,
  summary: "Retrieve an agent",
  auth: "both",
  scopes: [...readScopes],
  params: AgentParams,
  response: z.object({ data: AgentObject }),
  errors: ["not_found"],
});

export const updateAgentEndpoint = defineEndpoint({
  method: "PATCH",
  path: "/v1/agents/{agent}",
  tag,
  summary: "Update an agent; only the fields sent change",
  auth: "both",
  scopes: [...writeScopes],
  params: AgentParams,
  body: AgentUpdateBody,
  response: z.object({ data: AgentObject }),
  errors: [
    "not_found",
    "agent_name_taken",
    "model_unavailable",
    "unknown_tool",
    "tool_unavailable",
    "output_schema_unsupported",
    "forbidden",
  ],
});

export const deleteAgentEndpoint = defineEndpoint({
  method: "DELETE",
  path: "/v1/agents/{agent}",
  tag,
  summary:
    "Delete an agent with its knowledge documents and their bytes; its runs, steps and proposals are kept, with `agent: null`",
  auth: "both",
  scopes: [...writeScopes],
  params: AgentParams,
  response: Deleted,
  errors: ["not_found"],
});

export const listDocumentsEndpoint = defineEndpoint({
  method: "GET",
  path: "/v1/agents/{agent}/documents",
  tag,
  summary: "List an agent's knowledge documents",
  auth: "both",
  scopes: [...readScopes],
  params: AgentParams,
  query: ListQuery,
  response: z.object({ data: z.array(FileObject), next_cursor: z.string().nullable() }),
  errors: ["not_found"],
});

export const uploadDocumentEndpoint = defineEndpoint({
  method: "POST",
  path: "/v1/agents/{agent}/documents",
  tag,
  summary: "Upload a knowledge document (multipart, one field `file`)",
  auth: "both",
  scopes: [...writeScopes],
  params: AgentParams,
  multipart: true,
  status: 201,
  response: z.object({ data: FileObject }),
  errors: [
    "not_found",
    "too_many_documents",
    "storage_quota_exceeded",
    "file_too_large",
    "unsupported_file_type",
    "unsupported_media_type",
  ],
});

export const deleteDocumentEndpoint = defineEndpoint({
  method: "DELETE",
  path: "/v1/agents/{agent}/documents/{file}",
  tag,
  summary: "Delete a knowledge document and its bytes",
  auth: "both",
  scopes: [...writeScopes],
  params: AgentDocumentParams,
  response: Deleted,
  errors: ["not_found"],
});
