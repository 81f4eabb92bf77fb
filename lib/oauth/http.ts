import "server-only";
import {
  InvalidRequestError,
  OAuthError,
  ServerError,
  TooManyRequestsError,
} from "@modelcontextprotocol/sdk/server/auth/errors.js";
import { readBoundedBody } from "@/lib/http/body";
import { log } from "@/lib/log";

// The HTTP frame of the authorization server's endpoints: OAuth's own error
// object (RFC 6749 §5.2) instead of Guichet's envelope, no caching of any
// answer that carries a secret, and CORS open to browser-based MCP clients
// (these endpoints take no cookie, so an open origin grants nothing).

export const OAUTH_CORS = {
  "access-control-allow-origin": "*",
  "access-control-allow-methods": "GET, POST, OPTIONS",
  "access-control-allow-headers": "authorization, content-type, mcp-protocol-version",
  "access-control-max-age": "600",
} as const;

export function oauthJson(status: number, body: unknown, headers: Record<string, string> = {}): Response {
  return new Response(JSON.stringify(body), {
    status,
    headers: { "content-type": "application/json", "cache-control": "no-store", ...OAUTH_CORS, ...headers },
  });
}

export function preflight(): Response {
  return new Response(null, { status: 204, headers: OAUTH_CORS });
}

/** Runs an endpoint; an OAuthError becomes its JSON answer, anything else a logged server_error. */
export async function oauthEndpoint(name: string, work: () => Promise<Response>): Promise<Response> {
  try {
    return await work();
  } catch (error) {
    if (error instanceof OAuthError) {
      const status = error instanceof TooManyRequestsError ? 429 : error.errorCode === "invalid_client" ? 401 : 400;
      return oauthJson(status, error.toResponseObject());
    }
    log("error", "oauth_endpoint_failed", {
      endpoint: name,
      error: error instanceof Error ? `${error.name}: ${error.message}` : "non-error thrown",
    });
    return oauthJson(500, new ServerError("Internal error.").toResponseObject());
  }
}

/** A bounded request body as text; too large or not UTF-8 is invalid_request. */
export async function bodyText(request: Request): Promise<string> {
  const body = await readBoundedBody(request);
  if ("tooLarge" in body) throw new InvalidRequestError("The body is too large.");
  if ("invalidUtf8" in body) throw new InvalidRequestError("The body is not UTF-8.");
  return body.text;
}

/** An application/x-www-form-urlencoded body (token and revocation requests). A repeated parameter is refused. */
export async function formBody(request: Request): Promise<Record<string, string>> {
  const type = request.headers.get("content-type") ?? "";
  if (!type.toLowerCase().startsWith("application/x-www-form-urlencoded"))
    throw new InvalidRequestError("The body must be application/x-www-form-urlencoded.");
  const form: Record<string, string> = {};
  for (const [name, value] of new URLSearchParams(await bodyText(request))) {
    if (name in form) throw new InvalidRequestError(`The parameter ${name} is repeated.`);
    form[name] = value;
  }
  return form;
}
