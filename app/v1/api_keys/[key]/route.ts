import { revokeApiKeyEndpoint, serializeApiKey } from "@/lib/api-keys/api";
import { revokeApiKey } from "@/lib/api-keys/service";
import { actorOf } from "@/lib/audit/record";
import { handle } from "@/lib/http/handler";

// DELETE /v1/api_keys/{key} — revoke a key (session only)
export const DELETE = handle(revokeApiKeyEndpoint, async ({ principal, params }) => ({
  data: serializeApiKey(await revokeApiKey(principal.organizationId, params.key, actorOf(principal))),
}));
