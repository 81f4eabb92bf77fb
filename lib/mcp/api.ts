import { MANAGER_ROLES } from "@/lib/auth/scopes";
import { z } from "zod";
import { defineEndpoint } from "@/lib/http/endpoint";
import {
  McpServerCreateBody,
  McpServerObject,
  McpServerParams,
  McpServerUpdateBody,
  McpToolObject,
  McpToolParams,
  McpToolUpdateBody,
  SyncSummaryObject,
} from "./schemas";

// /v1/mcp_servers: owners and admins only, in the console (API keys have no connector scope).

export * from "./schemas";

const serverErrors = ["not_found", "forbidden"] as const;

export const listMcpServersEndpoint = defineEndpoint({
  method: "GET",
  path: "/v1/mcp_servers",
  tag: "MCP connectors",
  summary: "List the organization's MCP servers",
  auth: "session",
  roles: [...MANAGER_ROLES],
  response: z.object({ data: z.array(McpServerObject), next_cursor: z.null() }),
  errors: ["forbidden"],
});

export const createMcpServerEndpoint = defineEndpoint({
  method: "POST",
  path: "/v1/mcp_servers",
  tag: "MCP connectors",
  summary: "Connect an MCP server (Streamable HTTP); sync it next",
  auth: "session",
  roles: [...MANAGER_ROLES],
  body: McpServerCreateBody,
  status: 201,
  response: z.object({ data: McpServerObject }),
  errors: ["forbidden", "url_not_allowed"],
});

export const getMcpServerEndpoint = defineEndpoint({
  method: "GET",
  path: "/v1/mcp_servers/{server}",
  tag: "MCP connectors",
  summary: "One MCP server",
  auth: "session",
  roles: [...MANAGER_ROLES],
  params: McpServerParams,
  response: z.object({ data: McpServerObject }),
  errors: [...serverErrors],
});

export const updateMcpServerEndpoint = defineEndpoint({
  method: "PATCH",
  path: "/v1/mcp_servers/{server}",
  tag: "MCP connectors",
  summary: "Rename, move, change credentials, activate or deactivate an MCP server",
  auth: "session",
  roles: [...MANAGER_ROLES],
  params: McpServerParams,
  body: McpServerUpdateBody,
  response: z.object({ data: McpServerObject }),
  errors: [...serverErrors, "url_not_allowed"],
});

export const deleteMcpServerEndpoint = defineEndpoint({
  method: "DELETE",
  path: "/v1/mcp_servers/{server}",
  tag: "MCP connectors",
  summary: "Remove an MCP server and its tools",
  auth: "session",
  roles: [...MANAGER_ROLES],
  params: McpServerParams,
  response: z.object({ data: z.object({ id: z.number().int(), deleted: z.literal(true) }) }),
  errors: [...serverErrors],
});

export const syncMcpServerEndpoint = defineEndpoint({
  method: "POST",
  path: "/v1/mcp_servers/{server}/sync",
  tag: "MCP connectors",
  summary: "List the server's tools over MCP and record them; new or changed tools wait for a review",
  auth: "session",
  roles: [...MANAGER_ROLES],
  params: McpServerParams,
  response: z.object({ data: McpServerObject, sync: SyncSummaryObject }),
  errors: [...serverErrors, "mcp_sync_failed", "connection_required"],
});

export const listMcpToolsEndpoint = defineEndpoint({
  method: "GET",
  path: "/v1/mcp_servers/{server}/tools",
  tag: "MCP connectors",
  summary: "The server's tools with their schemas, review state and changes",
  auth: "session",
  roles: [...MANAGER_ROLES],
  params: McpServerParams,
  response: z.object({ data: z.array(McpToolObject), next_cursor: z.null() }),
  errors: [...serverErrors],
});

export const updateMcpToolEndpoint = defineEndpoint({
  method: "PATCH",
  path: "/v1/mcp_servers/{server}/tools/{tool}",
  tag: "MCP connectors",
  summary: "Review a tool (writes_data decided by a person), enable or disable it",
  auth: "session",
  roles: [...MANAGER_ROLES],
  params: McpToolParams,
  body: McpToolUpdateBody,
  response: z.object({ data: McpToolObject }),
  errors: [...serverErrors, "mcp_tool_changed"],
});
