import { authorizationServerMetadata, issuerOf } from "@/lib/oauth/config";
import { oauthJson, preflight } from "@/lib/oauth/http";

// Some MCP clients look for OpenID discovery only: the same metadata (Guichet issues no ID tokens).
export async function GET(request: Request) {
  return oauthJson(200, authorizationServerMetadata(issuerOf(request)), { "cache-control": "public, max-age=300" });
}

export const OPTIONS = preflight;
