import { updateMcpToolEndpoint } from "@/lib/mcp/api";
import { parseServerId } from "@/lib/mcp/servers";
import { updateServerTool } from "@/lib/mcp/tools";
import { actorOf } from "@/lib/audit/record";
import { handle } from "@/lib/http/handler";

// PATCH /v1/mcp_servers/{server}/tools/{tool} — review a tool, decide writes_data, enable or disable it
export const PATCH = handle(updateMcpToolEndpoint, async ({ principal, params, body }) => ({
  data: await updateServerTool(
    principal.organizationId,
    parseServerId(params.server),
    params.tool,
    body,
    principal.kind === "member" ? principal.memberId : null,
    actorOf(principal),
  ),
}));
