import { LOADER_VERSION } from "./loader";

// The frame page's HTML and headers. The only Guichet page another site may
// frame: `frame-ancestors` lists exactly the widget's origins (every other page
// keeps 'none'; `?preview=1` adds 'self' for the console's « Aperçu »), and it runs no inline script (the bubble's code is /widget/frame.js).

const escapeHtml = (value: string) =>
  value.replace(/[&<>"']/g, (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" })[c]!);

/** The frame's headers; in preview mode Guichet's own pages (the console's « Aperçu ») may frame it too. */
export function frameHeaders(origins: string[], options: { preview?: boolean } = {}): Record<string, string> {
  const ancestors = [...(options.preview ? ["'self'"] : []), ...origins];
  return {
    "content-type": "text/html; charset=utf-8",
    "content-security-policy": [
      "default-src 'none'",
      "script-src 'self'",
      "style-src 'self' 'unsafe-inline'",
      "img-src 'self' data:",
      "connect-src 'self'",
      "base-uri 'none'",
      "form-action 'none'",
      `frame-ancestors ${ancestors.length ? ancestors.join(" ") : "'none'"}`,
    ].join("; "),
    "referrer-policy": "same-origin",
    "x-content-type-options": "nosniff",
    "cache-control": "no-store",
  };
}

const STYLE = `
:root { --accent: #1d4ed8; color-scheme: light; }
* { box-sizing: border-box; }
main { flex: 1; display: flex; flex-direction: column; min-height: 0; }
body { margin: 0; font: 15px/1.45 system-ui, sans-serif; color: #111827; background: #fff; display: flex; flex-direction: column; height: 100vh; }
header { display: flex; align-items: center; gap: 8px; padding: 12px 14px; background: var(--accent); color: #fff; }
header h1 { font-size: 16px; margin: 0; flex: 1; }
header button { background: transparent; color: #fff; border: 1px solid rgba(255,255,255,.7); border-radius: 6px; padding: 4px 8px; cursor: pointer; font: inherit; font-size: 13px; }
#greeting { margin: 12px 14px 0; color: #374151; }
#log { flex: 1; overflow-y: auto; padding: 12px 14px; display: flex; flex-direction: column; gap: 8px; }
.bubble { max-width: 85%; padding: 8px 12px; border-radius: 12px; white-space: normal; overflow-wrap: anywhere; }
.bubble p { margin: 0 0 6px; } .bubble p:last-child { margin: 0; }
.visitor { align-self: flex-end; background: var(--accent); color: #fff; }
.assistant { align-self: flex-start; background: #f3f4f6; }
.notice { align-self: flex-start; background: #fef3c7; color: #78350f; }
.assistant a { color: #1e40af; }
#starters { display: flex; flex-wrap: wrap; gap: 6px; padding: 0 14px 8px; }
#starters button { border: 1px solid var(--accent); color: #1e3a8a; background: #fff; border-radius: 999px; padding: 4px 10px; cursor: pointer; font: inherit; font-size: 13px; }
#status { min-height: 20px; padding: 0 14px; font-size: 13px; color: #4b5563; }
form { display: flex; gap: 8px; padding: 10px 14px 14px; border-top: 1px solid #e5e7eb; }
textarea { flex: 1; resize: none; font: inherit; padding: 8px; border: 1px solid #9ca3af; border-radius: 8px; }
form button { background: var(--accent); color: #fff; border: 0; border-radius: 8px; padding: 0 14px; font: inherit; cursor: pointer; }
:focus-visible { outline: 3px solid #f59e0b; outline-offset: 2px; }
`;

export function framePage(widget: {
  origins: string[];
  language: "fr" | "en";
  title: string;
  preview?: boolean;
}): string {
  const en = widget.language === "en";
  const t = (fr: string, english: string) => escapeHtml(en ? english : fr);
  return `<!doctype html>
<html lang="${widget.language}">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${escapeHtml(widget.title)}</title>
<style>${STYLE}</style>
</head>
<body data-origins="${escapeHtml(JSON.stringify(widget.origins))}" data-language="${widget.language}"${widget.preview ? ' data-preview="1"' : ""}>
<header>
<h1 id="title">${escapeHtml(widget.title)}</h1>
<button type="button" id="new">${t("Nouvelle conversation", "New conversation")}</button>
<button type="button" id="close" aria-label="${t("Fermer l'assistant", "Close the assistant")}">✕</button>
</header>
<main>
<p id="greeting"></p>
<div id="log" role="log" aria-live="polite" aria-label="${t("Conversation", "Conversation")}" tabindex="0"></div>
<div id="starters" role="group" aria-label="${t("Suggestions", "Suggestions")}"></div>
<div id="status" role="status" aria-live="polite"></div>
<form id="composer">
<label for="input" style="position:absolute;left:-9999px">${t("Votre message", "Your message")}</label>
<textarea id="input" rows="2" maxlength="4000" placeholder="${t("Écrivez votre message…", "Write your message…")}"></textarea>
<button type="submit">${t("Envoyer", "Send")}</button>
</form>
</main>
<script src="/widget/frame.js?v=${LOADER_VERSION}"></script>
</body>
</html>`;
}
