import { beforeAll, describe, expect, it } from "vitest";
import { api, attemptSignIn, baseUrl, createTenant, signIn, type Caller, type Tenant } from "./helpers";

// Hostile callback URLs (query, form field, planted cookie) never turn next-auth's
// routes, a console page or a cookie-authenticated /v1 call into a 500, and never
// send anyone to another origin.

let tenant: Tenant;
let caller: Caller;

beforeAll(async () => {
  tenant = await createTenant("pro");
  caller = await signIn(tenant.emails.developer);
});

const hostile = [
  "x",
  "//evil.example/agents",
  "/\\evil.example",
  "https://evil.example/agents",
  "javascript:alert(1)",
  "%",
];
const planted = ["next-auth.callback-url", "__Secure-next-auth.callback-url", "__Host-next-auth.callback-url"];

function expectHome(location: string | null) {
  if (location === null) return;
  const url = new URL(location, baseUrl);
  expect(url.origin).toBe(new URL(baseUrl).origin);
}

async function get(path: string, cookie?: string) {
  return fetch(`${baseUrl}${path}`, { redirect: "manual", headers: cookie ? { cookie } : {} });
}

describe("next-auth's routes with hostile callback URLs", () => {
  it.each(hostile)("GET /api/auth/signin?callbackUrl=%j is not a 500 and stays on our origin", async (value) => {
    const response = await get(`/api/auth/signin?callbackUrl=${encodeURIComponent(value)}`);
    expect(response.status).toBeLessThan(500);
    expectHome(response.headers.get("location"));
    expect(response.headers.get("location") ?? "").not.toContain("evil");
  });

  it.each(hostile)("GET /api/auth/signout?callbackUrl=%j is not a 500", async (value) => {
    const response = await get(`/api/auth/signout?callbackUrl=${encodeURIComponent(value)}`);
    expect(response.status).toBeLessThan(500);
    expectHome(response.headers.get("location"));
  });

  it.each(planted)(
    "a planted %s=x cookie: signin, session and csrf answer, and the cookie is emptied",
    async (name) => {
      for (const path of ["/api/auth/signin", "/api/auth/session", "/api/auth/csrf", "/api/auth/providers"]) {
        const response = await get(path, `${name}=x`);
        expect(response.status, path).toBeLessThan(500);
      }
      const signin = await get("/api/auth/signin", `${name}=x`);
      // Overwritten with an empty value (or expired): the browser no longer sends "x".
      const written = signin.headers.getSetCookie().filter((c) => c.startsWith(`${name}=`));
      expect(written.length, signin.headers.getSetCookie().join(" | ")).toBeGreaterThan(0);
      expect(
        written.every((c) => c.startsWith(`${name}=;`)),
        written.join(" | "),
      ).toBe(true);
    },
  );

  it("the credentials callback with a hostile callbackUrl and a planted cookie signs in and lands on our origin", async () => {
    for (const value of hostile) {
      const csrf = await fetch(`${baseUrl}/api/auth/csrf`, { headers: { cookie: "next-auth.callback-url=x" } });
      expect(csrf.status).toBe(200);
      const { csrfToken } = (await csrf.json()) as { csrfToken: string };
      const cookies = csrf.headers
        .getSetCookie()
        .map((c) => c.split(";")[0])
        .filter((c) => c.startsWith("next-auth.csrf-token="));
      const response = await fetch(`${baseUrl}/api/auth/callback/credentials`, {
        method: "POST",
        redirect: "manual",
        headers: {
          "content-type": "application/x-www-form-urlencoded",
          cookie: [...cookies, "next-auth.callback-url=x"].join("; "),
        },
        body: new URLSearchParams({
          csrfToken,
          email: tenant.emails.developer,
          password: "guichet-demo",
          callbackUrl: value,
          json: "true",
        }).toString(),
      });
      expect(response.status, value).toBe(200);
      const { url } = (await response.json()) as { url: string };
      expect(new URL(url).origin).toBe(new URL(baseUrl).origin);
      expect(new URL(url).pathname).toBe("/agents");
      expect(response.headers.getSetCookie().some((c) => c.startsWith("next-auth.session-token="))).toBe(true);
    }
  });

  it("a plain sign-in still works and keeps a same-origin callback", async () => {
    const attempt = await attemptSignIn(tenant.emails.developer, "guichet-demo");
    expect(attempt.cookie).toBeDefined();
  });
});

describe("a planted callback-url cookie next to a live session", () => {
  it.each(planted)("%s=x changes nothing on a cookie-authenticated /v1 call", async (name) => {
    const response = await api("/v1/agents", { as: { cookie: `${caller.cookie}; ${name}=x` } });
    expect(response.status).toBe(200);
  });

  it.each(planted)("%s=x changes nothing on a console page", async (name) => {
    const response = await get("/agents", `${caller.cookie}; ${name}=x`);
    expect(response.status).toBe(200);
    expect(await response.text()).toContain("Agents");
  });

  it("without the session cookie, the planted cookie gives the normal 401 and the sign-in redirect", async () => {
    const v1 = await api("/v1/agents", { as: { cookie: "next-auth.callback-url=x" } });
    expect(v1.status).toBe(401);
    expect(v1.body.error.code).toBe("unauthenticated");
    const page = await get("/agents", "next-auth.callback-url=x");
    expect(page.status).toBeLessThan(500);
    expect(page.status === 200 ? await page.text() : (page.headers.get("location") ?? "")).toContain("connexion");
  });

  it("a garbage session cookie is no session, not a 500", async () => {
    const v1 = await api("/v1/agents", { as: { cookie: "next-auth.session-token=not-a-jwt" } });
    expect(v1.status).toBe(401);
  });
});

describe("a console page asked for while signed out", () => {
  it("sends to sign-in carrying the page asked for, query included", async () => {
    const response = await get("/approbations/prop_01JZZZZZZZZZZZZZZZZZZZZZZZ?x=1");
    expect(response.status).toBe(307);
    const location = new URL(response.headers.get("location")!, baseUrl);
    expect(location.pathname).toBe("/connexion");
    expect(location.searchParams.get("callbackUrl")).toBe("/approbations/prop_01JZZZZZZZZZZZZZZZZZZZZZZZ?x=1");
  });

  it("the landing page asked for adds nothing", async () => {
    const response = await get("/agents");
    expect(response.status).toBe(307);
    expect(response.headers.get("location")).toBe("/connexion");
  });

  it("a client-sent request-path header is overwritten by the server's own", async () => {
    const response = await fetch(`${baseUrl}/audit`, {
      redirect: "manual",
      headers: { "x-guichet-request-path": "//evil.example/agents" },
    });
    expect(response.status).toBe(307);
    expect(new URL(response.headers.get("location")!, baseUrl).searchParams.get("callbackUrl")).toBe("/audit");
  });

  it.each(["//evil.example", "https://evil.example", "/\\evil.example"])(
    "a signed-in visitor of /connexion?callbackUrl=%j goes to the default page, never away",
    async (value) => {
      const response = await get(`/connexion?callbackUrl=${encodeURIComponent(value)}`, caller.cookie);
      expect(response.status).toBe(307);
      expect(response.headers.get("location")).toBe("/agents");
    },
  );

  it("a signed-in visitor of /connexion?callbackUrl=/approbations goes there", async () => {
    const response = await get(`/connexion?callbackUrl=${encodeURIComponent("/approbations")}`, caller.cookie);
    expect(response.status).toBe(307);
    expect(response.headers.get("location")).toBe("/approbations");
  });
});
