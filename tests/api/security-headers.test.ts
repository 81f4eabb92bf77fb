import { beforeAll, describe, expect, it } from "vitest";
import { api, baseUrl, createTenant, type Tenant } from "./helpers";

// Clickjacking and friends: a page of another site could frame the approval
// screen and have one click approve a proposal. Every answer — console pages,
// /v1 successes and errors, the method gate's 405, next-auth, /mcp, health —
// carries the headers that forbid framing and sniffing.

let tenant: Tenant;

beforeAll(async () => {
  tenant = await createTenant("pro");
});

function expectSecurityHeaders(headers: Headers, what: string) {
  const csp = headers.get("content-security-policy") ?? "";
  expect(csp, what).toContain("frame-ancestors 'none'");
  expect(csp, what).toContain("default-src 'self'");
  expect(csp, what).toContain("object-src 'none'");
  expect(headers.get("x-frame-options"), what).toBe("DENY");
  expect(headers.get("referrer-policy"), what).toBe("same-origin");
  expect(headers.get("x-content-type-options"), what).toBe("nosniff");
}

describe("security headers", () => {
  it("are on console pages, signed in or not, and on the not-found page", async () => {
    const approver = await tenant.as("approver");
    const page = await fetch(`${baseUrl}/approbations`, { headers: { cookie: approver.cookie! } });
    expect(page.status).toBe(200);
    expect(await page.text()).toContain("Approbations");
    expectSecurityHeaders(page.headers, "/approbations");
    const signIn = await fetch(`${baseUrl}/connexion`);
    expect(signIn.status).toBe(200);
    expectSecurityHeaders(signIn.headers, "/connexion");
    const redirect = await fetch(`${baseUrl}/approbations`, { redirect: "manual" });
    expect(redirect.status).toBeGreaterThanOrEqual(300);
    expectSecurityHeaders(redirect.headers, "redirect to sign-in");
    const missing = await fetch(`${baseUrl}/approbations/%ff`);
    expect(missing.status).toBe(404);
    expectSecurityHeaders(missing.headers, "undecodable path");
  });

  it("are on /v1 successes and typed errors, the method gate's 405 and 404, and the OpenAPI document", async () => {
    const ok = await api("/v1/agents", { as: { key: tenant.key } });
    expect(ok.status).toBe(200);
    expectSecurityHeaders(ok.headers, "GET /v1/agents");
    const unauthenticated = await api("/v1/agents");
    expect(unauthenticated.status).toBe(401);
    expect(unauthenticated.body.error.code).toBe("unauthenticated");
    expectSecurityHeaders(unauthenticated.headers, "401");
    const invalid = await api("/v1/agents", { json: { name: "" }, as: { key: tenant.key } });
    expect(invalid.status).toBe(400);
    expectSecurityHeaders(invalid.headers, "400");
    const notAllowed = await api("/v1/agents", { method: "PUT", json: {}, as: { key: tenant.key } });
    expect(notAllowed.status).toBe(405);
    expect(notAllowed.body.error.code).toBe("method_not_allowed");
    expectSecurityHeaders(notAllowed.headers, "405 from the method gate");
    const unknown = await api("/v1/agents", { method: "PROPFIND", as: { key: tenant.key } });
    expect(unknown.status).toBe(405);
    expectSecurityHeaders(unknown.headers, "PROPFIND");
    const gone = await api("/v1/%ff");
    expect(gone.status).toBe(404);
    expect(gone.body.error.code).toBe("not_found");
    expectSecurityHeaders(gone.headers, "404 from the method gate");
    const document = await api("/v1/openapi.json");
    expect(document.status).toBe(200);
    expectSecurityHeaders(document.headers, "openapi.json");
  });

  it("are on /api/health, next-auth's answers and the MCP endpoint", async () => {
    const health = await api("/api/health");
    expect(health.status).toBe(200);
    expectSecurityHeaders(health.headers, "/api/health");
    const healthPut = await api("/api/health", { method: "PUT" });
    expect(healthPut.status).toBe(405);
    expectSecurityHeaders(healthPut.headers, "PUT /api/health");
    const session = await api("/api/auth/session");
    expect(session.status).toBe(200);
    expectSecurityHeaders(session.headers, "/api/auth/session");
    const csrf = await api("/api/auth/csrf");
    expectSecurityHeaders(csrf.headers, "/api/auth/csrf");
    const mcp = await api("/mcp/agents/agt_missing", { json: { jsonrpc: "2.0", id: 1, method: "ping" } });
    expect(mcp.status).toBeGreaterThanOrEqual(400);
    expectSecurityHeaders(mcp.headers, "/mcp error");
  });
});
