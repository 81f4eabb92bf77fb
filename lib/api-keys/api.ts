import { z } from "zod";
import { Scope } from "@/lib/auth/scopes";
import { defineEndpoint } from "@/lib/http/endpoint";
import { isoOffset, isoOffsetOrNull } from "@/lib/time";
import { ApiKeyCreateBody, ApiKeyObject, ApiKeyParams } from "./schemas";
import type { ApiKeyRow } from "./service";

export * from "./schemas";

export function serializeApiKey(key: ApiKeyRow): ApiKeyObject {
  return {
    id: key.id,
    name: key.name,
    prefix: key.prefix,
    scopes: z.array(Scope).catch([]).parse(key.scopes),
    last_used_at: isoOffsetOrNull(key.lastUsedAt),
    revoked_at: isoOffsetOrNull(key.revokedAt),
    created_at: isoOffset(key.createdAt),
  };
}

const keyManagers = ["owner", "admin", "developer"] as const;

export const listApiKeysEndpoint = defineEndpoint({
  method: "GET",
  path: "/v1/api_keys",
  tag: "API keys",
  summary: "List the organization's API keys (never their secrets)",
  auth: "session",
  roles: [...keyManagers],
  response: z.object({ data: z.array(ApiKeyObject), next_cursor: z.null() }),
});

export const createApiKeyEndpoint = defineEndpoint({
  method: "POST",
  path: "/v1/api_keys",
  tag: "API keys",
  summary: "Create an API key; the secret is returned once",
  auth: "session",
  roles: [...keyManagers],
  body: ApiKeyCreateBody,
  status: 201,
  idempotencyReplay: "secret",
  response: z.object({ data: ApiKeyObject.extend({ secret: z.string() }) }),
  errors: ["idempotency_secret_not_replayable"],
});

export const revokeApiKeyEndpoint = defineEndpoint({
  method: "DELETE",
  path: "/v1/api_keys/{key}",
  tag: "API keys",
  summary: "Revoke an API key",
  auth: "session",
  roles: [...keyManagers],
  params: ApiKeyParams,
  response: z.object({ data: ApiKeyObject }),
  errors: ["not_found"],
});
