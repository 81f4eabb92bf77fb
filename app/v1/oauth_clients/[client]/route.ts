import { handle } from "@/lib/http/handler";
import { deleteOAuthClientEndpoint } from "@/lib/oauth/api";
import { deleteClientFor } from "@/lib/oauth/service";

// DELETE /v1/oauth_clients/{client} — every grant of the organization to this client is revoked
export const DELETE = handle(deleteOAuthClientEndpoint, async ({ principal, params }) => ({
  data: { id: params.client, deleted: true as const, revoked_grants: await deleteClientFor(principal, params.client) },
}));
