import { NextResponse, type NextRequest } from "next/server";
import { allowedMethods } from "@/lib/openapi/methods";

// A known /v1 path asked with a method it does not answer gets the 405 envelope
// (Next's own 405 has no body); everything else goes through untouched.
export function proxy(request: NextRequest) {
  const allowed = allowedMethods(request.nextUrl.pathname);
  if (!allowed || allowed.includes(request.method as never) || request.method === "HEAD" || request.method === "OPTIONS") {
    return NextResponse.next();
  }
  const requestId = `req_${crypto.randomUUID().replace(/-/g, "").slice(0, 26)}`;
  return NextResponse.json(
    { error: { code: "method_not_allowed", message: `${request.method} is not allowed here; use ${allowed.join(", ")}.`, request_id: requestId } },
    { status: 405, headers: { allow: allowed.join(", "), "x-request-id": requestId } },
  );
}

export const config = { matcher: "/v1/:path*" };
