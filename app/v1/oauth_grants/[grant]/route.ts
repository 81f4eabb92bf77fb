import { handle } from "@/lib/http/handler";
import { revokeOAuthGrantEndpoint } from "@/lib/oauth/api";
import { revokeGrantAs } from "@/lib/oauth/service";

// DELETE /v1/oauth_grants/{grant} — revoke a grant; its tokens end at their next request
export const DELETE = handle(revokeOAuthGrantEndpoint, async ({ principal, params }) => {
  await revokeGrantAs(principal, params.grant);
  return { data: { id: params.grant, revoked: true as const } };
});
