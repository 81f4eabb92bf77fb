import { actorOf } from "@/lib/audit/record";
import { countMcpServerConnectionsEndpoint, deleteMcpServerConnectionsEndpoint } from "@/lib/connections/api";
import { connectionCounts, disconnectEveryone } from "@/lib/connections/service";
import { handle } from "@/lib/http/handler";
import { parseServerId } from "@/lib/mcp/servers";

// GET /v1/mcp_servers/{server}/connections — how many members are connected (never their tokens)
export const GET = handle(countMcpServerConnectionsEndpoint, async ({ principal, params }) => ({
  data: await connectionCounts(principal.organizationId, parseServerId(params.server)),
}));

// DELETE /v1/mcp_servers/{server}/connections — disconnect every member (idempotent)
export const DELETE = handle(deleteMcpServerConnectionsEndpoint, async ({ principal, params }) => {
  await disconnectEveryone(principal.organizationId, parseServerId(params.server), actorOf(principal));
  return new Response(null, { status: 204 });
});
