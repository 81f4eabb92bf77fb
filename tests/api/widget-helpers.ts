import { createHmac } from "node:crypto";
import { SignJWT } from "jose";
import { api, baseUrl, testDb, type Tenant } from "./helpers";

// The widget's public surface spoken as a browser page would: an Origin on
// every request, a visitor token as Bearer, answers read whole (SSE included).

export async function createWidget(tenant: Tenant, body: Record<string, unknown>) {
  const response = await api("/v1/widgets", { json: body, as: { key: tenant.key } });
  if (response.status !== 201) throw new Error(`widget: ${response.status} ${JSON.stringify(response.body)}`);
  return response.body.data as Record<string, any> & { id: string; public_key: string; signing_secret: string };
}

export interface PublicAnswer {
  status: number;
  headers: Headers;
  body: any;
  text: string;
}

export async function widgetRequest(
  path: string,
  options: {
    origin?: string | null;
    token?: string;
    json?: unknown;
    method?: string;
    headers?: Record<string, string>;
    /** Another instance of the app (default: the suite's). */
    at?: string;
  },
): Promise<PublicAnswer> {
  const headers: Record<string, string> = { ...options.headers };
  if (options.origin) headers.origin = options.origin;
  if (options.token) headers.authorization = `Bearer ${options.token}`;
  if (options.json !== undefined) headers["content-type"] = "application/json";
  const response = await fetch(`${options.at ?? baseUrl}${path}`, {
    method: options.method ?? (options.json !== undefined ? "POST" : "GET"),
    headers,
    body: options.json !== undefined ? JSON.stringify(options.json) : undefined,
  });
  const text = await response.text();
  let body: any = null;
  try {
    body = text ? JSON.parse(text) : null;
  } catch {
    body = null;
  }
  return { status: response.status, headers: response.headers, body, text };
}

export async function openSession(publicKey: string, origin: string, extra: Record<string, unknown> = {}) {
  return widgetRequest("/widget/v1/sessions", { origin, json: { public_key: publicKey, ...extra } });
}

export async function visitorToken(publicKey: string, origin: string, extra: Record<string, unknown> = {}) {
  const response = await openSession(publicKey, origin, extra);
  if (response.status !== 201) throw new Error(`session: ${response.status} ${response.text}`);
  return response.body.data.visitor_token as string;
}

export async function newConversation(token: string, origin: string): Promise<string> {
  const response = await widgetRequest("/widget/v1/conversations", { origin, token, json: {} });
  if (response.status !== 201) throw new Error(`conversation: ${response.status} ${response.text}`);
  return response.body.data.id;
}

/** The SSE events of an answer, in order. */
export function sseEvents(text: string): { id: number; event: string; data: any }[] {
  return text
    .split("\n\n")
    .filter((block) => block.startsWith("id:"))
    .map((block) => {
      const fields = Object.fromEntries(
        block.split("\n").map((line) => [line.slice(0, line.indexOf(":")), line.slice(line.indexOf(":") + 2)]),
      );
      return { id: Number(fields.id), event: fields.event, data: JSON.parse(fields.data) };
    });
}

export function sendMessage(token: string, origin: string, conversation: string, content: string) {
  return widgetRequest(`/widget/v1/conversations/${conversation}/messages`, { origin, token, json: { content } });
}

/** A user token as the organization's server signs it (HS256, aud = widget id), with overrides. */
export async function userToken(
  widget: { id: string; signing_secret: string },
  claims: Record<string, unknown> = {},
  options: { expiresIn?: string | number; secret?: string; audience?: string } = {},
) {
  return new SignJWT({ name: "Camille Martin", ...claims })
    .setProtectedHeader({ alg: "HS256", typ: "JWT" })
    .setSubject(String(claims.sub ?? "client-1842"))
    .setAudience(options.audience ?? widget.id)
    .setIssuedAt()
    .setExpirationTime(options.expiresIn ?? "10m")
    .sign(new TextEncoder().encode(options.secret ?? widget.signing_secret));
}

const b64 = (value: unknown) => Buffer.from(JSON.stringify(value)).toString("base64url");

/** A token with any header, signed (HMAC-SHA256) with the secret whatever the header says. */
export function forgedToken(header: Record<string, unknown>, payload: Record<string, unknown>, secret?: string) {
  const head = `${b64(header)}.${b64(payload)}`;
  const signature = secret ? createHmac("sha256", secret).update(head).digest("base64url") : "";
  return `${head}.${signature}`;
}

/** What an organization's widgets stored: conversations, messages and widget runs (a refusal must leave them as they were). */
export async function stored(organizationId: string) {
  const db = await testDb();
  const [conversations, messages, runs] = await Promise.all([
    db.widgetConversation.count({ where: { organizationId } }),
    db.widgetMessage.count({ where: { organizationId } }),
    db.run.count({ where: { organizationId, source: "widget" } }),
  ]);
  return { conversations, messages, runs };
}
