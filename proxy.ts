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

// Multipart uploads skip the proxy: Next buffers (and cuts at 10 MB) the body of any
// request a proxy sees, and /v1/files streams uploads of up to the plan's limit to disk.
export const config = { matcher: [{ source: "/v1/:path*", missing: [{ type: "header", key: "content-type", value: "multipart/form-data.*" }] }] };
