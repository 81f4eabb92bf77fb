import { issuerOf, protectedResourceMetadata } from "@/lib/oauth/config";
import { oauthJson, preflight } from "@/lib/oauth/http";

// RFC 9728: where an MCP client learns which authorization server signs in for this agent's door.
export async function GET(request: Request, { params }: { params: Promise<{ agent: string }> }) {
  const { agent } = await params;
  if (!/^agt_[0-9a-z]{26}$/.test(agent))
    return oauthJson(404, { error: "not_found", error_description: "No such MCP endpoint." });
  return oauthJson(200, protectedResourceMetadata(issuerOf(request), agent), {
    "cache-control": "public, max-age=300",
  });
}

export const OPTIONS = preflight;
