import { z } from "zod";
import { MANAGER_ROLES } from "@/lib/auth/scopes";
import { defineEndpoint } from "@/lib/http/endpoint";
import { OAuthClientObject, OAuthClientParams, OAuthGrantObject, OAuthGrantParams } from "./schemas";

export * from "./schemas";

export const listOAuthGrantsEndpoint = defineEndpoint({
  method: "GET",
  path: "/v1/oauth_grants",
  tag: "Connected applications",
  summary: "The live OAuth grants: the caller's own, or every member's for an owner or administrator",
  auth: "session",
  response: z.object({ data: z.array(OAuthGrantObject), next_cursor: z.null() }),
});

export const revokeOAuthGrantEndpoint = defineEndpoint({
  method: "DELETE",
  path: "/v1/oauth_grants/{grant}",
  tag: "Connected applications",
  summary: "Revoke a grant: its tokens and MCP sessions end at their next request",
  auth: "session",
  params: OAuthGrantParams,
  response: z.object({ data: z.object({ id: z.string(), revoked: z.literal(true) }) }),
  errors: ["not_found"],
});

export const listOAuthClientsEndpoint = defineEndpoint({
  method: "GET",
  path: "/v1/oauth_clients",
  tag: "Connected applications",
  summary: "The OAuth clients the organization's members have granted access to",
  auth: "session",
  roles: [...MANAGER_ROLES],
  response: z.object({ data: z.array(OAuthClientObject), next_cursor: z.null() }),
});

export const deleteOAuthClientEndpoint = defineEndpoint({
  method: "DELETE",
  path: "/v1/oauth_clients/{client}",
  tag: "Connected applications",
  summary: "Delete a client for the organization: every grant of its members to it is revoked",
  auth: "session",
  roles: [...MANAGER_ROLES],
  params: OAuthClientParams,
  response: z.object({
    data: z.object({ id: z.string(), deleted: z.literal(true), revoked_grants: z.number().int() }),
  }),
  errors: ["not_found"],
});
