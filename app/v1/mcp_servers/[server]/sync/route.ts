import { syncMcpServerEndpoint } from "@/lib/mcp/api";
import { parseServerId, serializeServer } from "@/lib/mcp/servers";
import { syncServer } from "@/lib/mcp/sync";
import { actorOf } from "@/lib/audit/record";
import { handle } from "@/lib/http/handler";

// POST /v1/mcp_servers/{server}/sync — list the tools over MCP; new or changed ones wait for a review
export const POST = handle(syncMcpServerEndpoint, async ({ principal, params }) => {
  const { server, summary } = await syncServer(
    principal.organizationId,
    parseServerId(params.server),
    actorOf(principal),
  );
  return { data: serializeServer(server), sync: summary };
});
