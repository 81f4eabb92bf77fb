import { createMcpServerEndpoint, listMcpServersEndpoint } from "@/lib/mcp/api";
import { createServer, listServers, serializeServer } from "@/lib/mcp/servers";
import { actorOf } from "@/lib/audit/record";
import { handle } from "@/lib/http/handler";

// GET /v1/mcp_servers — the organization's MCP servers (owners and admins)
export const GET = handle(listMcpServersEndpoint, async ({ principal }) => ({
  data: (await listServers(principal.organizationId)).map(serializeServer),
  next_cursor: null,
}));

// POST /v1/mcp_servers — connect a server (URL checked against the SSRF rules, token encrypted)
export const POST = handle(createMcpServerEndpoint, async ({ principal, body }) => ({
  data: serializeServer(await createServer(principal.organizationId, body, actorOf(principal))),
}));
