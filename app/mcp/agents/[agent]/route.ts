import { withinRequest } from "@/lib/db/changes";
import { handleMcpRequest } from "@/lib/mcp-server/endpoint";

// Guichet as an MCP server (Streamable HTTP): one session = one run of the agent, every call through the dispatcher.
type RouteContext = { params: Promise<{ agent: string }> };

async function serve(request: Request, context: RouteContext): Promise<Response> {
  const { agent } = await context.params;
  return withinRequest(() => handleMcpRequest(request, agent));
}

// POST /mcp/agents/{agent} — one JSON-RPC message of a session (initialize opens it)
export const POST = serve;
// GET /mcp/agents/{agent} — 405: no server-initiated stream is offered
export const GET = serve;
// DELETE /mcp/agents/{agent} — end the session and its run
export const DELETE = serve;

export const dynamic = "force-dynamic";
