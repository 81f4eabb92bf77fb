import { formBody, oauthEndpoint, oauthJson, preflight } from "@/lib/oauth/http";
import { exchange } from "@/lib/oauth/tokens";

// The token endpoint: authorization_code (with PKCE) and refresh_token, public clients only.
export async function POST(request: Request) {
  return oauthEndpoint("token", async () => oauthJson(200, await exchange(await formBody(request))));
}

export const OPTIONS = preflight;
