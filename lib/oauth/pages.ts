import type { OAuthError } from "@modelcontextprotocol/sdk/server/auth/errors.js";

// The two bare pages of the authorization endpoint. Leaving for the client's
// redirect URI is a page that navigates (not a 303): the console's CSP allows
// forms to post only to itself, and browsers apply form-action to the
// redirects that follow a form, which would stop the answer at the door.

export function escapeHtml(value: string): string {
  return value.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}

/** A bare French page of the authorization flows (no console chrome, never cached). */
export function page(status: number, title: string, body: string, head = ""): Response {
  return new Response(
    `<!doctype html><html lang="fr"><head><meta charset="utf-8"><title>${escapeHtml(title)}</title>${head}` +
      `<meta name="viewport" content="width=device-width, initial-scale=1"></head>` +
      `<body style="font-family: system-ui, sans-serif; max-width: 32rem; margin: 4rem auto; padding: 0 1rem">${body}</body></html>`,
    { status, headers: { "content-type": "text/html; charset=utf-8", "cache-control": "no-store" } },
  );
}

export function authorizationErrorPage(error: OAuthError): Response {
  return page(
    400,
    "Autorisation impossible",
    `<h1>Autorisation impossible</h1><p>L’application qui vous a envoyé ici a fait une demande invalide ; ` +
      `rien n’a été autorisé.</p><p><code>${escapeHtml(error.errorCode)}</code> : ${escapeHtml(error.message)}</p>`,
  );
}

/** Back to the client with the answer (a code, or an error). */
export function continueTo(url: string): Response {
  const safe = escapeHtml(url);
  return page(
    200,
    "Retour à l’application",
    `<p>Retour à l’application… <a id="continue" href="${safe}">Continuer</a></p>`,
    `<meta http-equiv="refresh" content="0;url=${safe}">`,
  );
}
