// Headers sent with every response, console page or API answer alike: no other
// site may frame Guichet (an approval button under someone else's page is one
// click from a decision), and the browser neither guesses content types nor
// leaks our URLs to other origins. Imported by next.config.ts (every response
// Next serves) and by the method gate (the answers it gives before Next), so it
// imports nothing.

/**
 * The content security policy. Scripts: Next's production pages carry inline
 * `<script>` tags (the flight data of server components), so 'unsafe-inline' is
 * needed unless every page gets a per-request nonce — which means rendering
 * each page dynamically through a proxy just to stamp it. What the console
 * renders is React-escaped text (tool output is never rendered as HTML), and no
 * script may come from another origin. Styles: inline style attributes
 * (charts, Radix). `next dev` also needs eval and its websocket.
 */
export function contentSecurityPolicy(development = false): string {
  return [
    "default-src 'self'",
    `script-src 'self' 'unsafe-inline'${development ? " 'unsafe-eval'" : ""}`,
    "style-src 'self' 'unsafe-inline'",
    "img-src 'self' data: blob:",
    "font-src 'self' data:",
    `connect-src 'self'${development ? " ws: wss:" : ""}`,
    "object-src 'none'",
    "base-uri 'self'",
    "form-action 'self'",
    "frame-ancestors 'none'",
  ].join("; ");
}

export function securityHeaders(development = false): Record<string, string> {
  return {
    "content-security-policy": contentSecurityPolicy(development),
    "x-frame-options": "DENY",
    "referrer-policy": "same-origin",
    "x-content-type-options": "nosniff",
  };
}
