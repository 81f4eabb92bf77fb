import { randomBytes } from "node:crypto";
import { inject } from "vitest";
import { consentAt } from "@/connectors/boutique/sign-in";
import { api, baseUrl, testDb, type Caller, type Tenant } from "./helpers";

// Steps of the per-member connector suites, through the real API and real
// HTTP: Boutique (its authorization server and its MCP server) on one side,
// Guichet's connect route and callback on the other, a small cookie-keeping
// browser filling Boutique's login and consent forms in between.

export const boutiqueUrl = inject("boutiqueUrl");
export const boutiqueMcpUrl = `${boutiqueUrl}/mcp`;
export const CALLBACK = `${baseUrl}/oauth/connectors/callback`;

export async function boutiqueControl(path: string, body?: unknown): Promise<any> {
  const response = await fetch(`${boutiqueUrl}/__control/${path}`, {
    method: body === undefined ? "GET" : "POST",
    headers: body === undefined ? {} : { "content-type": "application/json" },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  if (!response.ok) throw new Error(`control ${path}: HTTP ${response.status}`);
  return response.json();
}

export const counters = () => boutiqueControl("counters");

/** How many tools/call Boutique served for this tool and account. */
export async function callsOf(tool: string, email: string): Promise<number> {
  return (await counters()).calls?.[tool]?.[email] ?? 0;
}

/** Creates a per-member connector to Boutique as the tenant's admin. */
export async function createBoutique(
  tenant: Tenant,
  auth: "oauth" | "per_user_token" = "oauth",
  url = boutiqueMcpUrl,
): Promise<number> {
  const response = await api("/v1/mcp_servers", {
    json: { name: `Boutique ${randomBytes(3).toString("hex")}`, url, auth },
    as: await tenant.as("admin"),
  });
  if (response.status !== 201) throw new Error(`create: HTTP ${response.status} ${JSON.stringify(response.body)}`);
  return response.body.data.id as number;
}

/**
 * Plays the member's browser from an authorization URL: Boutique's login form,
 * its consent, and the way back to Guichet's callback (not fetched: returned).
 */
export function consentAtBoutique(authorizationUrl: string, email: string): Promise<URL> {
  return consentAt(authorizationUrl, email, CALLBACK);
}

/** GET of Guichet's callback as the member's browser (their session cookie), redirects not followed. */
export async function callback(
  url: URL | string,
  as?: Caller,
): Promise<{ status: number; location: string | null; text: string }> {
  const response = await fetch(url, { headers: as?.cookie ? { cookie: as.cookie } : {}, redirect: "manual" });
  return { status: response.status, location: response.headers.get("location"), text: await response.text() };
}

/** The typed code a refusal page names. */
export function pageCode(text: string): string | null {
  return /data-error-code="([a-z_]+)"/.exec(text)?.[1] ?? null;
}

/** Starts a sign-in through the API: the authorization URL Boutique shows. */
export async function authorize(serverId: number, as: Caller, body: Record<string, unknown> = {}): Promise<string> {
  const response = await api(`/v1/me/connections/${serverId}/authorize`, { json: body, as });
  if (response.status !== 200) throw new Error(`authorize: HTTP ${response.status} ${JSON.stringify(response.body)}`);
  return response.body.data.authorization_url as string;
}

/** The whole connect flow over HTTP: authorize, Boutique's forms, Guichet's callback. Answers the callback's answer. */
export async function connectAs(serverId: number, as: Caller, email: string, returnTo?: string) {
  const url = await authorize(serverId, as, returnTo ? { return_to: returnTo } : {});
  const back = await consentAtBoutique(url, email);
  return callback(back, as);
}

export async function myConnections(as: Caller): Promise<any[]> {
  const response = await api("/v1/me/connections", { as });
  if (response.status !== 200) throw new Error(`connections: HTTP ${response.status} ${JSON.stringify(response.body)}`);
  return response.body.data;
}

export async function connectionRows(serverId: number) {
  const db = await testDb();
  return db.mcpConnection.findMany({ where: { serverId } });
}

export async function memberId(tenant: Tenant, role: string): Promise<string> {
  const db = await testDb();
  const member = await db.member.findFirst({ where: { organizationId: tenant.organizationId, role } });
  return member!.id;
}
