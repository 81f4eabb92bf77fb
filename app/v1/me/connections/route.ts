import { ApiError } from "@/lib/http/errors";
import { handle } from "@/lib/http/handler";
import { listMyConnectionsEndpoint } from "@/lib/connections/api";
import { listMyConnections } from "@/lib/connections/service";

// GET /v1/me/connections — the signed-in member's connection to each per-member connector
export const GET = handle(listMyConnectionsEndpoint, async ({ principal }) => {
  if (principal.kind !== "member") throw new ApiError("forbidden", "Connections belong to a signed-in member.");
  return { data: await listMyConnections(principal.organizationId, principal.memberId) };
});
