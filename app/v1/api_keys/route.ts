import { createApiKeyEndpoint, listApiKeysEndpoint, serializeApiKey } from "@/lib/api-keys/api";
import { createApiKey, listApiKeys } from "@/lib/api-keys/service";
import { actorOf } from "@/lib/audit/record";
import { handle } from "@/lib/http/handler";

// GET /v1/api_keys — list keys (session only)
export const GET = handle(listApiKeysEndpoint, async ({ principal }) => ({
  data: (await listApiKeys(principal.organizationId)).map(serializeApiKey),
  next_cursor: null,
}));

// POST /v1/api_keys — create a key, its secret shown once (session only)
export const POST = handle(createApiKeyEndpoint, async ({ principal, body }) => {
  const { key, secret } = await createApiKey({
    organizationId: principal.organizationId,
    name: body.name,
    scopes: body.scopes,
    createdById: principal.kind === "member" ? principal.memberId : null,
    actor: actorOf(principal),
  });
  return { data: { ...serializeApiKey(key), secret } };
});
