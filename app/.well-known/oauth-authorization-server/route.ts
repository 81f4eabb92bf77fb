import { authorizationServerMetadata, issuerOf } from "@/lib/oauth/config";
import { oauthJson, preflight } from "@/lib/oauth/http";

// RFC 8414 authorization server metadata.
export async function GET(request: Request) {
  return oauthJson(200, authorizationServerMetadata(issuerOf(request)), { "cache-control": "public, max-age=300" });
}

export const OPTIONS = preflight;
