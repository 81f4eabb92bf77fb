import type { ApiError } from "@/lib/http/errors";
import { issuerOf, resourceMetadataUrl } from "@/lib/oauth/config";

// How the door tells an MCP client to sign in (MCP authorization, 2025-11-25):
// a 401 names the protected resource metadata (RFC 9728) and the scope to ask
// for; a 403 insufficient_scope names the wider scope (incremental consent).
// API keys read the same headers and ignore what they do not use.

export function withOAuthChallenge(response: Response, error: ApiError, request: Request, agentId: string): Response {
  // The agent id lands inside a quoted header value: only an id-shaped one is echoed.
  if (!/^[A-Za-z0-9_-]{1,100}$/.test(agentId)) return response;
  const metadata = resourceMetadataUrl(issuerOf(request), agentId);
  if (error.code === "unauthenticated") {
    const invalid = error.reason?.oauth_error === "invalid_token" ? ', error="invalid_token"' : "";
    // The scope this URL needs: sessions read unless the URL asks for writes, as with an API key.
    const writes = new URL(request.url).searchParams.get("capabilities") === "read_write";
    response.headers.set(
      "www-authenticate",
      `Bearer realm="guichet"${invalid}, resource_metadata="${metadata}", scope="mcp:${writes ? "read_write" : "read"}"`,
    );
  }
  const required = error.reason?.required_scopes;
  if (error.code === "insufficient_scope" && Array.isArray(required) && required.includes("mcp:read_write")) {
    response.headers.set(
      "www-authenticate",
      `Bearer realm="guichet", error="insufficient_scope", scope="mcp:read_write", resource_metadata="${metadata}"`,
    );
  }
  return response;
}
