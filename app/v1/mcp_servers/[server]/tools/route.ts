import { listMcpToolsEndpoint } from "@/lib/mcp/api";
import { parseServerId } from "@/lib/mcp/servers";
import { listServerTools } from "@/lib/mcp/tools";
import { handle } from "@/lib/http/handler";

// GET /v1/mcp_servers/{server}/tools — the server's tools, review state and changes since the last review
export const GET = handle(listMcpToolsEndpoint, async ({ principal, params }) => ({
  data: await listServerTools(principal.organizationId, parseServerId(params.server)),
  next_cursor: null,
}));
