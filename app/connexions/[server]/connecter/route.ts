import { cookieHeaderReader, sessionFromCookies } from "@/lib/auth/session-cookie";
import { ReturnTo } from "@/lib/connections/schemas";
import { connectionErrorPage } from "@/lib/connections/pages";
import { publicOrigin } from "@/lib/connections/oauth";
import { authorizeMember } from "@/lib/connections/authorize";
import { findPerMemberServer } from "@/lib/connections/service";
import { ApiError } from "@/lib/http/errors";
import { parseServerId } from "@/lib/mcp/servers";

// The connect URL a member follows (Mes connexions, a tool left out of a run):
// signed out, the console's sign-in first and back here; an oauth connector
// sends the browser to its authorization server; a per_user_token connector to
// the form of Mes connexions where the member gives their token.
export async function GET(request: Request, context: { params: Promise<{ server: string }> }) {
  const url = new URL(request.url);
  const session = await sessionFromCookies(cookieHeaderReader(request.headers.get("cookie")));
  if (!session) {
    const back = `${url.pathname}${url.search}`;
    return redirect(`/connexion?callbackUrl=${encodeURIComponent(back)}`);
  }
  const rawReturn = url.searchParams.get("return_to");
  const returnTo = rawReturn !== null && ReturnTo.safeParse(rawReturn).success ? rawReturn : undefined;
  try {
    const serverId = parseServerId((await context.params).server);
    const server = await findPerMemberServer(session.organizationId, serverId);
    if (server.auth === "per_user_token") return redirect("/preferences#connexions");
    const { authorizationUrl } = await authorizeMember(
      { organizationId: session.organizationId, memberId: session.memberId },
      serverId,
      { origin: publicOrigin(request), returnTo },
    );
    return redirect(authorizationUrl);
  } catch (error) {
    if (error instanceof ApiError) return connectionErrorPage(error.code, error.status);
    throw error;
  }
}

function redirect(location: string): Response {
  return new Response(null, { status: 302, headers: { location, "cache-control": "no-store" } });
}
