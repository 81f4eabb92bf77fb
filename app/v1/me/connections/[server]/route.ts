import { actorOf } from "@/lib/audit/record";
import type { Principal } from "@/lib/auth/principal";
import { deleteMyConnectionEndpoint, replaceMyConnectionEndpoint } from "@/lib/connections/api";
import { disconnectMember, storeMemberToken } from "@/lib/connections/service";
import { ApiError } from "@/lib/http/errors";
import { handle } from "@/lib/http/handler";
import { parseServerId } from "@/lib/mcp/servers";

// Session only: the member is always the one signed in, never one named in the request.
function memberOf(principal: Principal) {
  if (principal.kind !== "member") throw new ApiError("forbidden", "Connections belong to a signed-in member.");
  return { organizationId: principal.organizationId, memberId: principal.memberId, actor: actorOf(principal) };
}

// PUT /v1/me/connections/{server} — {token}: the member's own token for a per_user_token connector
export const PUT = handle(replaceMyConnectionEndpoint, async ({ principal, params, body }) => ({
  data: await storeMemberToken(memberOf(principal), parseServerId(params.server), body.token),
}));

// DELETE /v1/me/connections/{server} — disconnect (idempotent)
export const DELETE = handle(deleteMyConnectionEndpoint, async ({ principal, params }) => {
  await disconnectMember(memberOf(principal), parseServerId(params.server));
  return new Response(null, { status: 204 });
});
