import NextAuth from "next-auth";
import { cookies } from "next/headers";
import type { NextRequest } from "next/server";
import { safeCallbackPath } from "@/lib/auth/callback-url";
import { CALLBACK_COOKIE_NAMES } from "@/lib/auth/cookies";
import { authOptions } from "@/lib/auth/options";
import { ApiError, toErrorEnvelope } from "@/lib/http/errors";
import { newId } from "@/lib/ids";

// next-auth's own routes: sign-in, sign-out, session, CSRF.
const handler = NextAuth(authOptions);

type Context = { params: Promise<{ nextauth: string[] }> };

/**
 * Around next-auth: a `callbackUrl` query that is not a same-origin path is
 * dropped (a GET is redirected to the same URL without it), and a callback-url
 * cookie that is not one is cleared on the answer. The `redirect` callback of
 * lib/auth/options.ts already maps either to the default page; this keeps them
 * from being echoed back or stored.
 */
async function guarded(request: NextRequest, context: Context): Promise<Response> {
  const origin = request.nextUrl.origin;
  const query = request.nextUrl.searchParams.get("callbackUrl");
  if (request.method === "GET" && query !== null && safeCallbackPath(query, origin) === null) {
    const clean = new URL(request.nextUrl.pathname, origin);
    for (const [key, value] of request.nextUrl.searchParams)
      if (key !== "callbackUrl") clean.searchParams.append(key, value);
    return new Response(null, { status: 303, headers: { location: `${clean.pathname}${clean.search}` } });
  }
  if (query !== null && safeCallbackPath(query, origin) === null) {
    const { status, body } = toErrorEnvelope(
      new ApiError("bad_request", "callbackUrl must be a path on this site."),
      newId("req"),
    );
    return Response.json(body, { status });
  }
  // next-auth answers 500 to a callback-url cookie it cannot parse: deleted from the jar it reads, it is no cookie.
  const jar = await cookies();
  const bad = CALLBACK_COOKIE_NAMES.filter((name) => {
    const planted = request.cookies.get(name)?.value;
    return planted !== undefined && safeCallbackPath(planted, origin) === null;
  });
  for (const name of bad) jar.delete(name);
  const response: Response = await handler(request, context);
  for (const name of bad) {
    const secure = name.startsWith("__") ? "; Secure" : "";
    response.headers.append("set-cookie", `${name}=; Path=/; Max-Age=0; HttpOnly; SameSite=Lax${secure}`);
  }
  return response;
}

export { guarded as GET, guarded as POST };
