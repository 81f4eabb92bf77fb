import "server-only";
import { createHmac, randomBytes } from "node:crypto";
import { errors as joseErrors, jwtVerify, SignJWT } from "jose";
import { authSecret } from "@/lib/auth/secret";
import { ApiError } from "@/lib/http/errors";
import { signingSecretOf, type WidgetRow } from "./service";

// Who talks to a widget. A verified visitor arrives with a token the
// organization's own server signed (HS256, the widget's signing secret, `aud`
// the widget's id, at most an hour); an anonymous one with nothing. Either way
// Guichet answers a short-lived visitor token of its own, bound to the widget,
// the visitor, the page's origin and the public key it was asked with: useless
// from another origin, for another widget, after a key rotation or expiry.

export const USER_TOKEN_MAX_LIFETIME_S = 3600;
const CLOCK_TOLERANCE_S = 30;
export const VISITOR_TOKEN_TTL_S = 3600;
/** A preview visitor (a member in the console) gets a shorter session: the console page issues a new one on each opening. */
export const PREVIEW_VISITOR_TOKEN_TTL_S = 900;
export const visitorTokenTtl = (visitor: Pick<Visitor, "preview">) =>
  visitor.preview ? PREVIEW_VISITOR_TOKEN_TTL_S : VISITOR_TOKEN_TTL_S;

export interface Visitor {
  /** `user:<sub>` (verified) or `anon:<random>`. */
  id: string;
  name: string | null;
  verified: boolean;
  /** A member trying the bubble from the console (« Aperçu »), on Guichet's own origin. */
  preview?: boolean;
}

function refuse(reason: string, message: string): ApiError {
  return new ApiError("user_token_invalid", message, { reason: { code: reason } });
}

/** A verified visitor from the organization's token; every refusal is typed (reason.code) and says why. */
export async function verifyUserToken(widget: WidgetRow, token: string | undefined): Promise<Visitor> {
  if (!token) throw refuse("missing", "This widget admits verified visitors only: send `user_token`.");
  const key = new TextEncoder().encode(signingSecretOf(widget));
  let payload;
  try {
    ({ payload } = await jwtVerify(token, key, {
      // Only HS256: `none`, RS256 with the secret as a public key and the like never reach the signature check.
      algorithms: ["HS256"],
      audience: widget.id,
      requiredClaims: ["sub", "exp"],
      clockTolerance: CLOCK_TOLERANCE_S,
    }));
  } catch (error) {
    if (error instanceof joseErrors.JWTExpired) throw refuse("expired", "The user token has expired.");
    if (error instanceof joseErrors.JOSEAlgNotAllowed)
      throw refuse("algorithm", "The user token must be signed with HS256.");
    if (error instanceof joseErrors.JWSSignatureVerificationFailed)
      throw refuse("signature", "The user token's signature does not match this widget's signing secret.");
    if (error instanceof joseErrors.JWTClaimValidationFailed) {
      if (error.claim === "aud") throw refuse("audience", "The user token's `aud` must be this widget's id.");
      if (error.claim === "nbf" || error.claim === "iat")
        throw refuse("not_yet_valid", "The user token is not valid yet.");
      throw refuse("claims", `The user token's \`${error.claim}\` claim is missing or invalid.`);
    }
    throw refuse("malformed", "The user token is not a well-formed JWT.");
  }
  const now = Math.floor(Date.now() / 1000);
  if (typeof payload.iat === "number" && payload.iat > now + CLOCK_TOLERANCE_S)
    throw refuse("not_yet_valid", "The user token was issued in the future.");
  if ((payload.exp ?? 0) - now > USER_TOKEN_MAX_LIFETIME_S + CLOCK_TOLERANCE_S)
    throw refuse("lifetime", "The user token may live at most one hour (`exp`).");
  if (typeof payload.sub !== "string" || payload.sub.length === 0 || payload.sub.length > 200)
    throw refuse("claims", "The user token's `sub` must be a string of 1 to 200 characters.");
  const name = typeof payload.name === "string" ? payload.name.slice(0, 100) : null;
  const email = typeof payload.email === "string" ? payload.email.slice(0, 200) : null;
  return { id: `user:${payload.sub}`, name: name ?? email, verified: true };
}

export function anonymousVisitor(): Visitor {
  return { id: `anon:${randomBytes(16).toString("base64url")}`, name: null, verified: false };
}

/** The key of Guichet's visitor tokens: derived from the server secret, for this one purpose. */
function visitorKey(): Uint8Array {
  return createHmac("sha256", authSecret()).update("guichet widget visitor token v1").digest();
}

/** A short fingerprint of the public key: a token asked with a rotated key is refused. */
const keyTag = (publicKey: string) =>
  createHmac("sha256", "widget-key").update(publicKey).digest("base64url").slice(0, 16);

export interface VisitorClaims {
  widgetId: string;
  organizationId: string;
  visitor: Visitor;
  origin: string;
}

export async function issueVisitorToken(widget: WidgetRow, visitor: Visitor, origin: string): Promise<string> {
  return new SignJWT({
    wid: widget.id,
    org: widget.organizationId,
    vis: visitor.id,
    nam: visitor.name,
    ver: visitor.verified,
    ...(visitor.preview ? { pre: true } : {}),
    ori: origin,
    kt: keyTag(widget.publicKey),
  })
    .setProtectedHeader({ alg: "HS256", typ: "guichet-visitor" })
    .setIssuedAt()
    .setExpirationTime(`${visitorTokenTtl(visitor)}s`)
    .sign(visitorKey());
}

const invalidVisitor = (message: string) => new ApiError("visitor_token_invalid", message);

/** The claims of a visitor token, or a refusal; the caller then checks them against the widget and the origin. */
export async function readVisitorToken(authorization: string | null): Promise<VisitorClaims & { keyTag: string }> {
  const match = authorization?.match(/^Bearer ([A-Za-z0-9._-]{20,4096})$/);
  if (!match)
    throw invalidVisitor("A visitor token is required (Authorization: Bearer …, from POST /widget/v1/sessions).");
  try {
    const { payload, protectedHeader } = await jwtVerify(match[1], visitorKey(), { algorithms: ["HS256"] });
    if (protectedHeader.typ !== "guichet-visitor") throw new Error("not a visitor token");
    const { wid, org, vis, nam, ver, pre, ori, kt } = payload;
    if (typeof wid !== "string" || typeof org !== "string" || typeof vis !== "string" || typeof ori !== "string")
      throw new Error("claims");
    return {
      widgetId: wid,
      organizationId: org,
      visitor: {
        id: vis,
        name: typeof nam === "string" ? nam : null,
        verified: ver === true,
        ...(pre === true ? { preview: true } : {}),
      },
      origin: ori,
      keyTag: typeof kt === "string" ? kt : "",
    };
  } catch (error) {
    if (error instanceof joseErrors.JWTExpired)
      throw invalidVisitor("The visitor token has expired: open a new session.");
    throw invalidVisitor("The visitor token is not valid.");
  }
}

export function keyTagOf(widget: Pick<WidgetRow, "publicKey">): string {
  return keyTag(widget.publicKey);
}
