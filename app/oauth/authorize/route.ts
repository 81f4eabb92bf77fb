import { isConsoleOrigin, requestHost } from "@/lib/auth/console-origin";
import { cookieHeaderReader, sessionFromCookies } from "@/lib/auth/session-cookie";
import {
  AuthorizationPageError,
  AuthorizationRedirectError,
  checkAuthorizationRequest,
  decide,
  errorRedirect,
  paramsOf,
} from "@/lib/oauth/authorize";
import { issuerOf } from "@/lib/oauth/config";
import { consentToken, consentTokenMatches } from "@/lib/oauth/consent";
import { bodyText } from "@/lib/oauth/http";
import { authorizationErrorPage, continueTo } from "@/lib/oauth/pages";

// The authorization endpoint. GET checks the request and sends the browser to
// the consent screen (which signs the member in first); POST is the member's
// answer from that screen. Refusals that cannot go back to the client (unknown
// client, redirect URI not registered) are shown here and go nowhere.

export async function GET(request: Request) {
  const url = new URL(request.url);
  const issuer = issuerOf(request);
  try {
    await checkAuthorizationRequest(paramsOf(url.searchParams), issuer);
  } catch (error) {
    if (error instanceof AuthorizationPageError) return authorizationErrorPage(error.oauth);
    if (error instanceof AuthorizationRedirectError)
      return new Response(null, { status: 302, headers: { location: errorRedirect(error, issuer) } });
    throw error;
  }
  return new Response(null, { status: 302, headers: { location: `/oauth/consentement${url.search}` } });
}

export async function POST(request: Request) {
  // The consent form is the console's own: another origin's page posting here is refused before anything is read.
  if (!isConsoleOrigin(request.headers.get("origin"), requestHost(request)))
    return new Response("Origine refusée.", { status: 403, headers: { "content-type": "text/plain; charset=utf-8" } });
  const cookies = cookieHeaderReader(request.headers.get("cookie"));
  const session = await sessionFromCookies(cookies);
  if (!session)
    return new Response("Session expirée : reconnectez-vous.", {
      status: 401,
      headers: { "content-type": "text/plain; charset=utf-8" },
    });
  const form = new URLSearchParams(await bodyText(request).catch(() => ""));
  const issuer = issuerOf(request);
  let authorization;
  try {
    authorization = await checkAuthorizationRequest(paramsOf(form), issuer);
  } catch (error) {
    if (error instanceof AuthorizationPageError) return authorizationErrorPage(error.oauth);
    if (error instanceof AuthorizationRedirectError) return continueTo(errorRedirect(error, issuer));
    throw error;
  }
  const expected = consentToken(cookies, {
    clientId: authorization.client.clientId,
    codeChallenge: authorization.codeChallenge,
    scope: authorization.scope,
    resource: authorization.resource,
  });
  if (!consentTokenMatches(expected, form.get("csrf")))
    return new Response("Jeton de formulaire invalide : rechargez la page.", {
      status: 403,
      headers: { "content-type": "text/plain; charset=utf-8" },
    });
  return continueTo(await decide(authorization, session, form.get("decision") === "allow", issuer));
}
