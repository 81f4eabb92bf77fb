import NextAuth, { type NextAuthOptions } from "next-auth";
import { cookies } from "next/headers";
import type { NextRequest } from "next/server";
import { safeCallbackPath } from "@/lib/auth/callback-url";
import { CALLBACK_COOKIE_NAMES } from "@/lib/auth/cookies";
import { requestConsoleOrigin } from "@/lib/auth/console-origin";
import { authOptions, redirectTarget } from "@/lib/auth/options";
import { ApiError, toErrorEnvelope } from "@/lib/http/errors";
import { newId } from "@/lib/ids";

// next-auth's own routes: sign-in, sign-out, session, CSRF.

/**
 * next-auth's options for this request: its redirects go back to the console
 * origin the browser is on (127.0.0.1 stays 127.0.0.1 when NEXTAUTH_URL says
 * localhost), not always to NEXTAUTH_URL's.
 */
function optionsFor(request: NextRequest): NextAuthOptions {
  const origin = requestConsoleOrigin(request);
  if (!origin) return authOptions;
  return {
    ...authOptions,
    callbacks: { ...authOptions.callbacks, redirect: ({ url, baseUrl }) => redirectTarget(url, baseUrl, origin) },
  };
}

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
  const response: Response = await NextAuth(request, context, optionsFor(request));
  for (const name of bad) {
    const secure = name.startsWith("__") ? "; Secure" : "";
    response.headers.append("set-cookie", `${name}=; Path=/; Max-Age=0; HttpOnly; SameSite=Lax${secure}`);
  }
  return response;
}

export { guarded as GET, guarded as POST };
