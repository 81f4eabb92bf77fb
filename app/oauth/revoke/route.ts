import { formBody, OAUTH_CORS, oauthEndpoint, preflight } from "@/lib/oauth/http";
import { revokeToken } from "@/lib/oauth/tokens";

// RFC 7009: a client gives up a token; its grant ends. An unknown token is answered 200 all the same.
export async function POST(request: Request) {
  return oauthEndpoint("revoke", async () => {
    await revokeToken(await formBody(request));
    return new Response(null, { status: 200, headers: { "cache-control": "no-store", ...OAUTH_CORS } });
  });
}

export const OPTIONS = preflight;
