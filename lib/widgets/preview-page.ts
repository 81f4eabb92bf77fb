import "server-only";
import { createHash } from "node:crypto";
import { requestConsoleOrigin } from "@/lib/auth/console-origin";
import { cookieHeaderReader, sessionFromCookies } from "@/lib/auth/session-cookie";
import { ApiError, toErrorEnvelope } from "@/lib/http/errors";
import { newId } from "@/lib/ids";
import { LOADER_JS } from "./browser/loader";
import { issuePreviewToken } from "./preview";
import { appearanceOf } from "./service";

// The page behind the console's « Aperçu »: the customer's snippet as is, plus
// a preview token minted for the signed-in member. Only Guichet's own pages may
// frame it, and it runs no inline script: the bubble is /widget.js, as anywhere.

const loaderVersion = createHash("sha256").update(LOADER_JS).digest("base64url").slice(0, 12);

const escapeHtml = (value: string) =>
  value.replace(/[&<>"']/g, (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" })[c]!);

function headers(): Record<string, string> {
  return {
    "content-security-policy": [
      "default-src 'none'",
      "script-src 'self'",
      "style-src 'unsafe-inline'",
      "img-src 'self' data:",
      "connect-src 'self'",
      "frame-src 'self'",
      "base-uri 'none'",
      "form-action 'none'",
      "frame-ancestors 'self'",
    ].join("; "),
    "x-frame-options": "SAMEORIGIN",
    "referrer-policy": "same-origin",
    "x-content-type-options": "nosniff",
    "cache-control": "no-store",
  };
}

export async function previewPage(request: Request, route: { params: Promise<{ widget: string }> }) {
  const requestId = newId("req");
  try {
    const session = await sessionFromCookies(cookieHeaderReader(request.headers.get("cookie")));
    if (!session) throw new ApiError("unauthenticated", "Sign in to preview a widget.");
    // The token is bound to the origin the console is opened on: the bubble's calls come from there.
    const origin = requestConsoleOrigin(request);
    if (!origin) throw new ApiError("forbidden", "The preview opens from the console's own address only.");
    const { widget: id } = await route.params;
    const { token, widget } = await issuePreviewToken(session, id, origin);
    const appearance = appearanceOf(widget);
    const html = `<!doctype html>
<html lang="fr">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>Aperçu · ${escapeHtml(widget.name)}</title>
<style>body { margin: 0; min-height: 100vh; font: 14px/1.5 system-ui, sans-serif; color: #334155; background: #f8fafc; } main { padding: 16px 20px; max-width: 30rem; }</style>
</head>
<body>
<main>
<h1 style="font-size:16px;margin:0 0 6px">Aperçu de « ${escapeHtml(widget.name)} »</h1>
<p style="margin:0">La bulle telle que vos visiteurs la verront (titre « ${escapeHtml(appearance.title)} »). Les conversations ouvertes ici sont marquées « aperçu » et comptent dans les limites du widget.</p>
</main>
<script src="/widget.js?v=${loaderVersion}" data-key="${escapeHtml(widget.publicKey)}" data-preview-token="${escapeHtml(token)}" async></script>
</body>
</html>`;
    return new Response(html, { headers: { ...headers(), "content-type": "text/html; charset=utf-8" } });
  } catch (error) {
    const { status, body, headers: extra } = toErrorEnvelope(error, requestId);
    return Response.json(body, { status, headers: { ...headers(), ...extra, "x-request-id": requestId } });
  }
}
