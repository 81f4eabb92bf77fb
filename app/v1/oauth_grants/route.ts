import { handle } from "@/lib/http/handler";
import { listOAuthGrantsEndpoint } from "@/lib/oauth/api";
import { listGrants } from "@/lib/oauth/service";

// GET /v1/oauth_grants — connected applications (own; every member's for owners and admins)
export const GET = handle(listOAuthGrantsEndpoint, async ({ principal }) => ({
  data: await listGrants(principal),
  next_cursor: null,
}));
