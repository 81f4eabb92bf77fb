import { db } from "@/lib/db";
import { deleteMcpServerEndpoint, getMcpServerEndpoint, updateMcpServerEndpoint } from "@/lib/mcp/api";
import { deleteServer, findServer, parseServerId, serializeServer, updateServer } from "@/lib/mcp/servers";
import { actorOf } from "@/lib/audit/record";
import { handle } from "@/lib/http/handler";

// GET /v1/mcp_servers/{server} — one server
export const GET = handle(getMcpServerEndpoint, async ({ principal, params }) => ({
  data: serializeServer(await findServer(principal.organizationId, parseServerId(params.server))),
}));

// PATCH /v1/mcp_servers/{server} — rename, move, change credentials, activate or deactivate
export const PATCH = handle(updateMcpServerEndpoint, async ({ principal, params, body }) => ({
  data: serializeServer(
    await updateServer(principal.organizationId, parseServerId(params.server), body, actorOf(principal)),
  ),
}));

// DELETE /v1/mcp_servers/{server} — remove the server and its tools
export const DELETE = handle(deleteMcpServerEndpoint, async ({ principal, params }) => {
  const id = parseServerId(params.server);
  await db.$transaction((tx) => deleteServer(principal.organizationId, id, actorOf(principal), tx));
  return { data: { id, deleted: true as const } };
});
