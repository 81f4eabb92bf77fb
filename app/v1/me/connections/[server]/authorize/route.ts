import { authorizeMyConnectionEndpoint } from "@/lib/connections/api";
import { publicOrigin } from "@/lib/connections/oauth";
import { authorizeMember } from "@/lib/connections/authorize";
import { ApiError } from "@/lib/http/errors";
import { handle } from "@/lib/http/handler";
import { parseServerId } from "@/lib/mcp/servers";

// POST /v1/me/connections/{server}/authorize — {return_to?}: where to send the member to sign in at the connector
export const POST = handle(authorizeMyConnectionEndpoint, async ({ principal, params, body, request }) => {
  if (principal.kind !== "member") throw new ApiError("forbidden", "Connections belong to a signed-in member.");
  const { authorizationUrl } = await authorizeMember(
    { organizationId: principal.organizationId, memberId: principal.memberId },
    parseServerId(params.server),
    { origin: publicOrigin(request), returnTo: body?.return_to },
  );
  return { data: { authorization_url: authorizationUrl } };
});
