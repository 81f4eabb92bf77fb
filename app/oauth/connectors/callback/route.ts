import { cookieHeaderReader, sessionFromCookies } from "@/lib/auth/session-cookie";
import { connectionErrorPage } from "@/lib/connections/pages";
import { CallbackRefusal, completeAuthorization } from "@/lib/connections/authorize";

// Where a connector's authorization server sends the member back (the redirect
// URI Guichet registers). The state, the member's session and the issuer are
// checked before the code is exchanged; any refusal is a French page with its
// typed code, and nothing is stored.
export async function GET(request: Request) {
  const session = await sessionFromCookies(cookieHeaderReader(request.headers.get("cookie")));
  try {
    const { returnTo } = await completeAuthorization(new URL(request.url).searchParams, session);
    return new Response(null, { status: 303, headers: { location: returnTo, "cache-control": "no-store" } });
  } catch (error) {
    if (error instanceof CallbackRefusal) return connectionErrorPage(error.code, error.status);
    throw error;
  }
}
