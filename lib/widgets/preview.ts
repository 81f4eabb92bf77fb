import "server-only";
import { createHmac } from "node:crypto";
import { errors as joseErrors, jwtVerify, SignJWT } from "jose";
import { isConsoleOrigin } from "@/lib/auth/console-origin";
import { authSecret } from "@/lib/auth/secret";
import { hasAnyScope, scopesForRole, type Role } from "@/lib/auth/scopes";
import { ApiError } from "@/lib/http/errors";
import { getWidget, type WidgetRow } from "./service";
import type { Visitor } from "./visitor";

// The console's « Aperçu »: the real bubble on a page Guichet serves, although
// Guichet's own origin is (rightly) not among the widget's allowed origins. A
// member who may change the widget gets a short-lived preview token, bound to
// that widget and to the console's origin the page was served on; with it the
// bubble opens a session from that origin only, as a preview visitor (the
// member), and its conversations are marked `preview`. They take the same
// limit slots as any visitor's: a preview is the real path, limits included.

export const PREVIEW_TOKEN_TTL_S = 600;

/** Preview tokens have their own key, derived from the server secret: a visitor token is never one. */
function previewKey(): Uint8Array {
  return createHmac("sha256", authSecret()).update("guichet widget preview token v1").digest();
}

export interface PreviewMember {
  memberId: string;
  organizationId: string;
  email: string;
  role: Role;
}

/**
 * A preview token for one widget of the member's organization, for the console
 * origin the request came to. Another organization's widget is 404; a role that
 * may not change widgets (agents:write) is refused.
 */
export async function issuePreviewToken(
  member: PreviewMember,
  widgetId: string,
  origin: string,
): Promise<{ token: string; widget: WidgetRow }> {
  if (!hasAnyScope(scopesForRole(member.role), ["agents:write"]))
    throw new ApiError("insufficient_scope", "Previewing a widget needs the scope agents:write.", {
      reason: { required_scopes: ["agents:write"] },
    });
  const widget = await getWidget(member.organizationId, widgetId);
  const token = await new SignJWT({ wid: widget.id, org: widget.organizationId, ori: origin, eml: member.email })
    .setProtectedHeader({ alg: "HS256", typ: "guichet-preview" })
    .setSubject(member.memberId)
    .setIssuedAt()
    .setExpirationTime(`${PREVIEW_TOKEN_TTL_S}s`)
    .sign(previewKey());
  return { token, widget };
}

const invalid = (message: string) => new ApiError("preview_token_invalid", message);

/**
 * The preview visitor of a session request: the token must be valid, for this
 * widget of this organization, issued for the very origin the request comes
 * from, and that origin must be the console's own (request host included).
 */
export async function previewVisitor(
  widget: WidgetRow,
  token: string,
  origin: string,
  requestHost: string,
): Promise<Visitor> {
  let payload;
  try {
    const verified = await jwtVerify(token, previewKey(), { algorithms: ["HS256"], requiredClaims: ["exp", "sub"] });
    if (verified.protectedHeader.typ !== "guichet-preview") throw new Error("not a preview token");
    payload = verified.payload;
  } catch (error) {
    if (error instanceof joseErrors.JWTExpired)
      throw invalid("The preview token has expired: open the preview again from the console.");
    throw invalid("The preview token is not valid.");
  }
  if (payload.wid !== widget.id || payload.org !== widget.organizationId)
    throw invalid("This preview token was issued for another widget.");
  if (payload.ori !== origin || !isConsoleOrigin(origin, requestHost))
    throw invalid("A preview token works only on the console page it was issued for.");
  const email = typeof payload.eml === "string" ? payload.eml : "";
  return { id: `preview:${payload.sub}`, name: `Aperçu · ${email}`.slice(0, 100), verified: false, preview: true };
}
