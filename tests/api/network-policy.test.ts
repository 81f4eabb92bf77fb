import { beforeAll, describe, expect, it } from "vitest";
import { api, createTenant, crmUrl, simBaseUrl, type Tenant } from "./helpers";

// The operator's allowlist of private origins, as an organization sees it:
// readable by its owners and admins, writable by nobody through the API.

let tenant: Tenant;

beforeAll(async () => {
  tenant = await createTenant("pro");
});

describe("GET /v1/network/private_origins", () => {
  it("shows owners and admins the operator's allowlist: CRM Acme's and model-sim's origins in the test stack", async () => {
    for (const role of ["owner", "admin"] as const) {
      const response = await api("/v1/network/private_origins", { as: await tenant.as(role) });
      expect(response.status, role).toBe(200);
      expect(response.body).toEqual({
        data: {
          origins: [new URL(crmUrl).origin, simBaseUrl],
          applies_to: ["mcp_servers", "search_backend", "model_providers"],
        },
      });
    }
  });

  it("refuses other roles (403 forbidden) and API keys (session only)", async () => {
    for (const role of ["developer", "approver", "viewer"] as const) {
      const response = await api("/v1/network/private_origins", { as: await tenant.as(role) });
      expect(response.status, role).toBe(403);
      expect(response.body.error.code).toBe("forbidden");
    }
    const byKey = await api("/v1/network/private_origins", { as: { key: tenant.key } });
    expect(byKey.status).toBe(403);
    expect(byKey.body.error.code).toBe("forbidden");
  });

  it("cannot be written: 405 with Allow: GET", async () => {
    for (const method of ["POST", "PUT", "PATCH", "DELETE"]) {
      const response = await api("/v1/network/private_origins", {
        method,
        json: { origins: ["http://10.0.0.1"] },
        as: await tenant.as("owner"),
      });
      expect(response.status, method).toBe(405);
      expect(response.body.error.code).toBe("method_not_allowed");
    }
    const after = await api("/v1/network/private_origins", { as: await tenant.as("owner") });
    expect(after.body.data.origins).toEqual([new URL(crmUrl).origin, simBaseUrl]);
  });
});
