import { readdirSync, readFileSync, statSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { buildOpenApiDocument } from "./document";
import { componentNames } from "./components";
import { endpoints, operationIds } from "./endpoints";
import { tags } from "./tags";
import { allowedMethods } from "./methods";

function routeFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((entry) => {
    const full = path.join(dir, entry);
    return statSync(full).isDirectory() ? routeFiles(full) : entry === "route.ts" ? [full] : [];
  });
}

// app/v1/agents/[agent]/route.ts → /v1/agents/{agent}
function apiPath(file: string): string {
  return "/" + path.dirname(file).replace(/^app\//, "").replace(/\[([^\]]+)\]/g, "{$1}");
}

const declared = new Set(endpoints.map((e) => `${e.method} ${e.path}`));

describe("every /v1 route is declared", () => {
  const files = routeFiles("app/v1").filter((f) => !f.includes("[...path]") && !f.includes("openapi.json"));
  it.each(files)("%s", (file) => {
    const methods = [...readFileSync(file, "utf8").matchAll(/export const (GET|POST|PUT|PATCH|DELETE)\b/g)].map((m) => m[1]);
    expect(methods.length).toBeGreaterThan(0);
    for (const method of methods) expect(declared).toContain(`${method} ${apiPath(file)}`);
  });
});

describe("the OpenAPI document", () => {
  it("lists every declared endpoint", () => {
    const document = buildOpenApiDocument();
    for (const endpoint of endpoints) {
      expect(document.paths?.[endpoint.path]?.[endpoint.method.toLowerCase() as "get"]).toBeDefined();
    }
  });

  it("gives every operation a unique verbNoun operationId and a declared tag", () => {
    const ids = endpoints.map((endpoint) => operationIds.get(endpoint));
    expect(new Set(ids).size).toBe(endpoints.length);
    for (const id of ids) expect(id).toMatch(/^(list|get|create|update|delete|upload|revoke|call|sync|cancel|resolve|approve|refuse|count|replace|configure|test|replay|resend|rotate|export|revise|decide|simulate|promote|authorize)[A-Z][A-Za-z]+$/);
    const declaredTags = new Set(tags.map((tag) => tag.name));
    for (const endpoint of endpoints) expect(declaredTags).toContain(endpoint.tag);
  });

  it("publishes the objects as named components and refers to them", () => {
    const document = buildOpenApiDocument();
    expect(Object.keys(document.components?.schemas ?? {}).sort()).toEqual([...componentNames].sort());
    const text = JSON.stringify(document.paths);
    for (const name of ["Agent", "Run", "ToolCallEnvelope", "Proposal", "Operation", "Error"]) expect(text).toContain(`"#/components/schemas/${name}"`);
  });

  it("requires a body only where an empty one is refused", () => {
    const document = buildOpenApiDocument();
    expect(document.paths?.["/v1/runs"]?.post?.requestBody).toMatchObject({ required: true });
    expect(document.paths?.["/v1/agents/{agent}"]?.patch?.requestBody).toMatchObject({ required: false });
    expect(document.paths?.["/v1/files"]?.post?.requestBody).toMatchObject({ required: true });
  });

  it("declares session-only operations with cookieAuth and forbidden among their 403 codes", () => {
    const document = buildOpenApiDocument();
    const sessionOnly = endpoints.filter((endpoint) => endpoint.auth === "session");
    expect(sessionOnly.length).toBeGreaterThan(0);
    for (const endpoint of sessionOnly) {
      const operation = document.paths?.[endpoint.path]?.[endpoint.method.toLowerCase() as "get"];
      expect(operation?.security).toEqual([{ cookieAuth: [] }]);
      expect((operation?.responses?.["403"] as { description: string }).description).toContain("`forbidden`");
    }
  });

  it("matches the committed openapi/openapi.json", () => {
    const committed = JSON.parse(readFileSync("openapi/openapi.json", "utf8"));
    expect(committed).toEqual(JSON.parse(JSON.stringify(buildOpenApiDocument())));
  });
});

describe("the 405 table", () => {
  it("knows the methods of a path with parameters and nothing of unknown paths", () => {
    expect(allowedMethods("/v1/api_keys/key_123")).toEqual(["DELETE"]);
    expect(allowedMethods("/v1/no-such-thing")).toBeNull();
  });
});
