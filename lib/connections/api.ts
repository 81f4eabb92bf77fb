import { MANAGER_ROLES } from "@/lib/auth/scopes";
import { z } from "zod";
import { defineEndpoint } from "@/lib/http/endpoint";
import {
  ConnectionAuthorizationObject,
  ConnectionAuthorizeBody,
  ConnectionCountsObject,
  ConnectionObject,
  ConnectionParams,
  ConnectionTokenBody,
} from "./schemas";

export * from "./schemas";

// /v1/me/connections: each member's own connections to connectors that act as
// each member. Members only (an API key has no member); every role connects for
// themself. Admins see counts per connector and may disconnect everyone.

const everyone = ["owner", "admin", "developer", "approver", "viewer"] as const;

export const listMyConnectionsEndpoint = defineEndpoint({
  method: "GET",
  path: "/v1/me/connections",
  tag: "Connections",
  summary: "The signed-in member's connection to each active connector that acts as each member",
  auth: "session",
  roles: [...everyone],
  response: z.object({ data: z.array(ConnectionObject) }),
  errors: ["forbidden"],
});

export const replaceMyConnectionEndpoint = defineEndpoint({
  method: "PUT",
  path: "/v1/me/connections/{server}",
  tag: "Connections",
  summary: "Store the signed-in member's own token for a per_user_token connector",
  auth: "session",
  roles: [...everyone],
  params: ConnectionParams,
  body: ConnectionTokenBody,
  response: z.object({ data: ConnectionObject }),
  errors: ["not_found", "forbidden", "connection_auth_mismatch"],
});

export const authorizeMyConnectionEndpoint = defineEndpoint({
  method: "POST",
  path: "/v1/me/connections/{server}/authorize",
  tag: "Connections",
  summary: "Start the signed-in member's OAuth sign-in at an oauth connector; open authorization_url in the browser",
  auth: "session",
  roles: [...everyone],
  params: ConnectionParams,
  body: ConnectionAuthorizeBody,
  response: z.object({ data: ConnectionAuthorizationObject }),
  errors: ["not_found", "forbidden", "connection_auth_mismatch", "connection_unavailable", "url_not_allowed"],
});

export const deleteMyConnectionEndpoint = defineEndpoint({
  method: "DELETE",
  path: "/v1/me/connections/{server}",
  tag: "Connections",
  summary: "Disconnect the signed-in member from a connector (idempotent)",
  auth: "session",
  roles: [...everyone],
  params: ConnectionParams,
  status: 204,
  errors: ["not_found", "forbidden"],
});

export const countMcpServerConnectionsEndpoint = defineEndpoint({
  method: "GET",
  path: "/v1/mcp_servers/{server}/connections",
  tag: "Connections",
  summary: "How many members are connected to a connector (never their tokens)",
  auth: "session",
  roles: [...MANAGER_ROLES],
  params: ConnectionParams,
  response: z.object({ data: ConnectionCountsObject }),
  errors: ["not_found", "forbidden"],
});

export const deleteMcpServerConnectionsEndpoint = defineEndpoint({
  method: "DELETE",
  path: "/v1/mcp_servers/{server}/connections",
  tag: "Connections",
  summary: "Disconnect every member from a connector (idempotent)",
  auth: "session",
  roles: [...MANAGER_ROLES],
  params: ConnectionParams,
  status: 204,
  errors: ["not_found", "forbidden"],
});
