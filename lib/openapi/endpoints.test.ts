import { readdirSync, readFileSync, statSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { buildOpenApiDocument } from "./document";
import { endpoints } from "./endpoints";
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
