import { handle } from "@/lib/http/handler";
import { listOAuthClientsEndpoint } from "@/lib/oauth/api";
import { listClients } from "@/lib/oauth/service";

// GET /v1/oauth_clients — the OAuth clients the organization's members granted (owners and admins)
export const GET = handle(listOAuthClientsEndpoint, async ({ principal }) => ({
  data: await listClients(principal.organizationId),
  next_cursor: null,
}));
