import { randomBytes } from "node:crypto";
import http from "node:http";
import { inject } from "vitest";
import type { Role, Scope } from "@/lib/auth/scopes";
import { startApp, testNetwork } from "./server";

export const baseUrl = inject("baseUrl");
export const dataDir = inject("dataDir");
process.env.DATABASE_URL = inject("databaseUrl");
process.env.GUICHET_DATA_DIR = dataDir;

/** The test process's own handle on the server's database, to arrange and to check stored state. */
export async function testDb() {
  return (await import("@/lib/db")).db;
}

export interface ApiResponse<T = any> {
  status: number;
  headers: Headers;
  body: T;
}

export interface Caller {
  /** Bearer API key, or the cookie header of a signed-in session. */
  key?: string;
  cookie?: string;
}

export async function api<T = any>(
  path: string,
  options: { method?: string; json?: unknown; body?: BodyInit; headers?: Record<string, string>; as?: Caller } = {},
): Promise<ApiResponse<T>> {
  const headers: Record<string, string> = { ...options.headers };
  if (options.as?.key) headers.authorization = `Bearer ${options.as.key}`;
  if (options.as?.cookie) headers.cookie = options.as.cookie;
  if (options.json !== undefined) headers["content-type"] ??= "application/json";
  const response = await fetch(`${baseUrl}${path}`, {
    method: options.method ?? (options.json !== undefined || options.body !== undefined ? "POST" : "GET"),
    headers,
    body: options.json !== undefined ? JSON.stringify(options.json) : options.body,
  });
  const text = await response.text();
  let body: unknown = text;
  try {
    body = text ? JSON.parse(text) : null;
  } catch {
    // not JSON: keep the text
  }
  return { status: response.status, headers: response.headers, body: body as T };
}

export interface RawResponse {
  status: number;
  cookies: string[];
  text: string;
}

/** A plain HTTP request, optionally from another loopback address (the server counts sign-ins per client address). */
export function rawRequest(
  url: string,
  options: { method?: string; headers?: Record<string, string>; body?: string; localAddress?: string } = {},
): Promise<RawResponse> {
  return new Promise((resolve, reject) => {
    const request = http.request(
      url,
      { method: options.method ?? "GET", headers: options.headers, localAddress: options.localAddress },
      (response) => {
        let text = "";
        response.setEncoding("utf8");
        response.on("data", (chunk) => (text += chunk));
        response.on("end", () =>
          resolve({
            status: response.statusCode ?? 0,
            cookies: (response.headers["set-cookie"] ?? []).map((c) => c.split(";")[0]),
            text,
          }),
        );
      },
    );
    request.on("error", reject);
    request.end(options.body);
  });
}

export interface SignInAttempt {
  status: number;
  /** The session cookie when the sign-in succeeded. */
  cookie?: string;
  /** next-auth's error code when it did not (CredentialsSignin, SignInThrottled). */
  error?: string;
}

/** One attempt through next-auth's real credentials flow, against `at` (this suite's server by default), from `localAddress` (127.0.0.x). */
export async function attemptSignIn(
  email: string,
  password: string,
  options: { at?: string; localAddress?: string; headers?: Record<string, string> } = {},
): Promise<SignInAttempt> {
  const at = options.at ?? baseUrl;
  const csrf = await rawRequest(`${at}/api/auth/csrf`, { localAddress: options.localAddress });
  const { csrfToken } = JSON.parse(csrf.text) as { csrfToken: string };
  const response = await rawRequest(`${at}/api/auth/callback/credentials`, {
    method: "POST",
    localAddress: options.localAddress,
    headers: {
      ...options.headers,
      "content-type": "application/x-www-form-urlencoded",
      cookie: csrf.cookies.join("; "),
    },
    body: new URLSearchParams({ csrfToken, email, password, json: "true" }).toString(),
  });
  const cookie = response.cookies.find((c) => c.startsWith("next-auth.session-token="));
  let error: string | undefined;
  try {
    const { url } = JSON.parse(response.text) as { url?: string };
    error = url && URL.canParse(url) ? (new URL(url).searchParams.get("error") ?? undefined) : undefined;
  } catch {
    // not JSON
  }
  return { status: response.status, cookie, error };
}

/** Signs in through next-auth's real credentials flow and returns the session cookie. */
export async function signIn(email: string, password = "guichet-demo", at = baseUrl): Promise<Caller> {
  const attempt = await attemptSignIn(email, password, { at });
  if (!attempt.cookie) throw new Error(`sign-in failed for ${email} (HTTP ${attempt.status}, ${attempt.error})`);
  return { cookie: attempt.cookie };
}

/** Signs out through next-auth (what the console's button does), against `at`. */
export async function signOut(caller: Caller, at = baseUrl): Promise<void> {
  const csrf = await rawRequest(`${at}/api/auth/csrf`, { headers: { cookie: caller.cookie! } });
  const { csrfToken } = JSON.parse(csrf.text) as { csrfToken: string };
  const response = await rawRequest(`${at}/api/auth/signout`, {
    method: "POST",
    headers: {
      "content-type": "application/x-www-form-urlencoded",
      cookie: [caller.cookie!, ...csrf.cookies].join("; "),
    },
    body: new URLSearchParams({ csrfToken, json: "true" }).toString(),
  });
  if (response.status !== 200) throw new Error(`sign-out failed (HTTP ${response.status})`);
}

export interface Tenant {
  organizationId: string;
  slug: string;
  /** An API key with every scope. */
  key: string;
  /** Member emails by role (password: guichet-demo). */
  emails: Record<Role, string>;
  keyWith(scopes: Scope[]): Promise<string>;
  as(role: Role): Promise<Caller>;
}

/** A fresh organization of its own for a test file: members of every role and an all-scopes key. */
export async function createTenant(plan: "free" | "pro" = "pro"): Promise<Tenant> {
  const db = await testDb();
  const { newId } = await import("@/lib/ids");
  const { hashPassword } = await import("@/lib/auth/passwords");
  const { createApiKey } = await import("@/lib/api-keys/service");
  const { allScopes } = await import("@/lib/auth/scopes");
  const slug = `t-${randomBytes(5).toString("hex")}`;
  const organization = await db.organization.create({
    data: { id: newId("org"), slug, name: `Test ${slug}`, planId: plan },
  });
  const passwordHash = await hashPassword("guichet-demo");
  const roles: Role[] = ["owner", "admin", "developer", "approver", "viewer"];
  const emails = {} as Record<Role, string>;
  for (const role of roles) {
    emails[role] = `${role}@${slug}.test`;
    await db.member.create({
      data: {
        id: newId("mem"),
        organizationId: organization.id,
        email: emails[role],
        name: `${role} ${slug}`,
        role,
        passwordHash,
      },
    });
  }
  const keyWith = async (scopes: Scope[]) =>
    (await createApiKey({ organizationId: organization.id, name: `test ${scopes.join(",")}`, scopes })).secret;
  const sessions = new Map<Role, Caller>();
  return {
    organizationId: organization.id,
    slug,
    key: await keyWith([...allScopes]),
    emails,
    keyWith,
    async as(role) {
      if (!sessions.has(role)) sessions.set(role, await signIn(emails[role]));
      return sessions.get(role)!;
    },
  };
}

export const crmUrl = inject("crmUrl");
export const crmBaseUrl = inject("crmBaseUrl");
export const simBaseUrl = inject("simBaseUrl");
export const searchUrl = inject("searchUrl");

/**
 * Network settings for another app instance of this suite: the test hosts, the suite's search backend
 * (so web_search is offered there too), and CRM Acme and that backend as private origins granted to
 * every test tenant.
 */
export function suiteNetwork(): Record<string, string> {
  return {
    ...testNetwork(),
    GUICHET_SEARCH_URL: searchUrl,
    GUICHET_PRIVATE_ORIGINS: [`${new URL(crmUrl).origin}=*`, `${new URL(searchUrl).origin}=*`].join(","),
  };
}

/** Another production instance of the suite's server on the suite's database (a second node), `env` on top. */
export function startSuiteInstance(env: Record<string, string> = {}): ReturnType<typeof startApp> {
  return startApp({ ...process.env, ...suiteNetwork(), ...env, NODE_ENV: "production" });
}

/** The CRM Acme service's stored state, to assert on what really happened there. */
export async function crmState(): Promise<any> {
  const response = await fetch(`${crmBaseUrl}/__control/state`);
  return response.json();
}

/** Switches CRM Acme faults on or off (cut_after_commit, malformed_success, slow_ms, status_down, tool_schema_variant). */
export async function crmFaults(faults: Record<string, unknown>): Promise<void> {
  const response = await fetch(`${crmBaseUrl}/__control/faults`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify(faults),
  });
  if (!response.ok) throw new Error(`faults: HTTP ${response.status}`);
}

/** Every row of every table of the application's database, as text: to prove a value (a secret, a planted string) is stored nowhere. */
export async function storedText(): Promise<string> {
  const db = await testDb();
  const sqlite = (process.env.DATABASE_URL ?? "").startsWith("file:");
  const tables = sqlite
    ? await db.$queryRawUnsafe<{ name: string }[]>("SELECT name FROM sqlite_master WHERE type = 'table'")
    : await db.$queryRawUnsafe<{ name: string }[]>(
        "SELECT table_name::text AS name FROM information_schema.tables WHERE table_schema = 'public'",
      );
  const dumps: string[] = [];
  for (const { name } of tables) {
    const table = `"${name.replace(/"/g, "")}"`;
    // PostgreSQL: each row as JSON text, whatever its column types.
    const rows = sqlite
      ? await db.$queryRawUnsafe<unknown[]>(`SELECT * FROM ${table}`)
      : await db.$queryRawUnsafe<unknown[]>(`SELECT row_to_json(t)::text AS row FROM ${table} t`);
    dumps.push(JSON.stringify(rows, (_k, v) => (typeof v === "bigint" ? v.toString() : v)));
  }
  if (dumps.length < 10) throw new Error(`only ${dumps.length} tables found`);
  return dumps.join("\n");
}

/**
 * POSTs `prefix` then filler bytes past `bytes`, chunked (no Content-Length), and
 * never ends the body: only a server that stops reading at its limit can answer.
 * Resolves with the answer's status and JSON, or rejects after `waitMs` without one.
 */
export async function postUnendingChunkedBody(
  url: string,
  headers: Record<string, string>,
  prefix: string,
  bytes: number,
  waitMs = 15_000,
): Promise<{ status: number; body: any }> {
  const { request } = await import("node:http");
  return new Promise((resolve, reject) => {
    const outgoing = request(url, { method: "POST", headers: { "content-type": "application/json", ...headers } });
    const timer = setTimeout(() => {
      outgoing.destroy();
      reject(
        new Error(`no answer within ${waitMs} ms while the body was still open: the server waited for the whole body`),
      );
    }, waitMs);
    outgoing.on("response", (answer) => {
      let text = "";
      answer.setEncoding("utf8");
      answer.on("data", (chunk: string) => (text += chunk));
      answer.on("end", () => {
        clearTimeout(timer);
        outgoing.destroy();
        resolve({ status: answer.statusCode ?? 0, body: text ? JSON.parse(text) : null });
      });
    });
    outgoing.on("error", (error) => {
      clearTimeout(timer);
      reject(error);
    });
    outgoing.write(prefix);
    const chunk = "x".repeat(64 * 1024);
    for (let sent = prefix.length; sent <= bytes; sent += chunk.length) outgoing.write(chunk);
  });
}

/** Polls `probe` until it returns something truthy; a bound, not a sleep: it fails loudly when the state never comes. */
export async function until<T>(
  probe: () => Promise<T | null | undefined | false>,
  what: string,
  timeoutMs = 30_000,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value) return value;
    if (Date.now() > deadline) throw new Error(`still waiting for ${what} after ${timeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}
