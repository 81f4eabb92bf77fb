import { createHash } from "node:crypto";
import { LOADER_JS, LOADER_VERSION } from "@/lib/widgets/browser/loader";

// GET /widget.js — the loader a customer's page includes. The same bytes for
// everyone (no per-request data), so a page may pin them with `integrity`.
const etag = `"${createHash("sha256").update(LOADER_JS).digest("base64url")}"`;

export function GET(request: Request): Response {
  const headers = {
    "content-type": "text/javascript; charset=utf-8",
    "cache-control": "public, max-age=3600, stale-while-revalidate=86400",
    etag,
    "x-guichet-widget-version": LOADER_VERSION,
    "cross-origin-resource-policy": "cross-origin",
  };
  if (request.headers.get("if-none-match") === etag) return new Response(null, { status: 304, headers });
  return new Response(LOADER_JS, { headers });
}
