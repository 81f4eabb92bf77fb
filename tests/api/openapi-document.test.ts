import { readFileSync } from "node:fs";
import { beforeAll, describe, expect, it } from "vitest";
import { api, baseUrl, createTenant, testDb, type Tenant } from "./helpers";

// What a schema fuzzer or a generated client reads in the committed document
// must be what the server does: each rule below is read from the document,
// then checked against the running server (a value the document allows is
// accepted, one it forbids is refused, and nothing is stored for it).

type Schema = Record<string, any>;
const document = JSON.parse(readFileSync("openapi/openapi.json", "utf8")) as Schema;

function operation(path: string, method: string): Schema {
  return document.paths[path][method];
}

function bodySchema(path: string, method: string): Schema {
  const schema = operation(path, method).requestBody.content["application/json"].schema;
  return schema.$ref ? document.components.schemas[schema.$ref.split("/").pop()] : schema;
}

function queryParameter(path: string, name: string): Schema {
  return operation(path, "get").parameters.find((p: Schema) => p.in === "query" && p.name === name).schema;
}

let acme: Tenant;
beforeAll(async () => {
  acme = await createTenant("pro");
});

describe("empty path segments", () => {
  it.each([
    ["GET", "/v1/agents/"],
    ["GET", "/v1/agents//tools"],
    ["POST", "/v1/agents/"],
    ["DELETE", "/v1/agents//documents/x"],
  ])("%s %s answers the 404 envelope, not a redirect or a 405", async (method, path) => {
    const response = await fetch(`${baseUrl}${path}`, {
      method,
      redirect: "manual",
      headers: { authorization: `Bearer ${acme.key}` },
    });
    expect(response.status).toBe(404);
    const body = (await response.json()) as Schema;
    expect(body.error).toMatchObject({ code: "not_found", request_id: expect.stringMatching(/^req_/) });
  });

  it("documents 404 on every operation with a path parameter (an empty one is an unknown path)", () => {
    for (const [path, item] of Object.entries(document.paths as Record<string, Schema>))
      for (const [method, op] of Object.entries(item))
        if (path.includes("{")) expect(op.responses, `${method} ${path}`).toHaveProperty("404");
  });
});

describe("formats", () => {
  it("declares format email and uri where the server refuses other strings", async () => {
    expect(bodySchema("/v1/invitations", "post").properties.email.format).toBe("email");
    expect(bodySchema("/v1/webhook_endpoints", "post").properties.url.format).toBe("uri");
    expect(bodySchema("/v1/mcp_servers", "post").properties.url.format).toBe("uri");
    expect(bodySchema("/v1/model_providers/{provider}", "put").properties.base_url.format).toBe("uri");
    const admin = await acme.as("admin");
    const invited = await api("/v1/invitations", { json: { email: "pas-une-adresse", role: "viewer" }, as: admin });
    expect(invited.status).toBe(400);
    expect(invited.body.error.code).toBe("invalid_parameter");
    const hook = await api("/v1/webhook_endpoints", {
      json: { url: "pas une url", events: ["proposal.created"] },
      as: admin,
    });
    expect(hook.status).toBe(400);
    expect(hook.body.error.code).toBe("invalid_parameter");
    const db = await testDb();
    expect(await db.invitation.count({ where: { organizationId: acme.organizationId } })).toBe(0);
    expect(await db.webhookEndpoint.count({ where: { organizationId: acme.organizationId } })).toBe(0);
  });

  it("declares webhook events as unique items, which the server enforces", async () => {
    const events = bodySchema("/v1/webhook_endpoints", "post").properties.events;
    expect(events.uniqueItems).toBe(true);
    const admin = await acme.as("admin");
    const twice = await api("/v1/webhook_endpoints", {
      json: { url: "https://hooks.example/guichet", events: ["proposal.created", "proposal.created"] },
      as: admin,
    });
    expect(twice.status).toBe(400);
    expect(twice.body.error.code).toBe("invalid_parameter");
    expect(await (await testDb()).webhookEndpoint.count({ where: { organizationId: acme.organizationId } })).toBe(0);
  });
});

describe("status filters", () => {
  it.each([
    ["/v1/proposals", ["pending", "approved", "refused", "expired", "superseded", "consumed"]],
    ["/v1/operations", ["queued", "running", "accepted", "succeeded", "failed", "cancelled", "unknown"]],
  ])("%s lists its status values, and the server agrees with the pattern", async (path, values) => {
    const schema = queryParameter(path, "status");
    for (const value of values) expect(schema.description).toContain(`\`${value}\``);
    const pattern = new RegExp(schema.pattern);
    const caller = { key: acme.key };
    for (const filter of [values[0], `${values[0]},${values[1]}`, ` ${values[1]} ,${values[0]},`]) {
      expect(pattern.test(filter), filter).toBe(true);
      const listed = await api(`${path}?status=${encodeURIComponent(filter)}`, { as: caller });
      expect(listed.status, filter).toBe(200);
    }
    for (const filter of ["", ",", "nope", `${values[0]},nope`]) {
      expect(pattern.test(filter), filter).toBe(false);
      const refused = await api(`${path}?status=${encodeURIComponent(filter)}`, { as: caller });
      expect(refused.status, filter).toBe(400);
      expect(refused.body.error.code).toBe("invalid_parameter");
    }
  });
});
