import { describe, expect, it } from "vitest";
import { jsonSchemaProblem } from "./json-schema";

describe("jsonSchemaProblem", () => {
  it("accepts valid 2020-12 schemas, with or without $id, again and again", () => {
    const schema = { $id: "https://example.test/answer", type: "object", properties: { answer: { type: "string" } }, required: ["answer"] };
    expect(jsonSchemaProblem(schema)).toBeNull();
    expect(jsonSchemaProblem(schema)).toBeNull();
    expect(jsonSchemaProblem({ type: "object", "x-ui": "tolerated" })).toBeNull();
    expect(jsonSchemaProblem({ type: "object", $defs: { a: { type: "number" } }, properties: { a: { $ref: "#/$defs/a" } } })).toBeNull();
  });

  it.each([
    [{ type: "strin" }, /type/],
    [{ properties: { a: { minLength: -1 } } }, /minLength/],
    [{ $ref: "#/$defs/missing" }, /resolve reference/],
    [{ $ref: "https://example.com/remote.json" }, /resolve reference/],
    [{ type: "string", pattern: "(" }, /regular expression/i],
    [{ required: "a" }, /required/],
  ])("refuses %j", (schema, problem) => {
    expect(jsonSchemaProblem(schema)).toMatch(problem);
  });

  it("leaves nothing registered after a failed compile", () => {
    const broken = { $id: "https://example.test/x", type: "nope" };
    expect(jsonSchemaProblem(broken)).not.toBeNull();
    expect(jsonSchemaProblem({ $id: "https://example.test/x", type: "object" })).toBeNull();
  });
});
