import { describe, expect, it } from "vitest";
import { jsonSchemaProblem } from "./json-schema";

describe("jsonSchemaProblem", () => {
  it("accepts valid 2020-12 schemas, with or without $id, again and again", () => {
    const schema = {
      $id: "https://example.test/answer",
      type: "object",
      properties: { answer: { type: "string" } },
      required: ["answer"],
    };
    expect(jsonSchemaProblem(schema)).toBeNull();
    expect(jsonSchemaProblem(schema)).toBeNull();
    expect(jsonSchemaProblem({ type: "object", "x-ui": "tolerated" })).toBeNull();
    expect(
      jsonSchemaProblem({ type: "object", $defs: { a: { type: "number" } }, properties: { a: { $ref: "#/$defs/a" } } }),
    ).toBeNull();
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

describe("hostile schemas", () => {
  const nested = (levels: number) => {
    let schema: Record<string, unknown> = { type: "string" };
    for (let i = 0; i < levels; i++) schema = { type: "array", items: schema };
    return schema;
  };

  it("refuses a schema nested deeper than MAX_SCHEMA_DEPTH with a clean message", () => {
    expect(jsonSchemaProblem(nested(20))).toBeNull();
    expect(jsonSchemaProblem(nested(62))).toMatch(/deeper than 32 levels/);
  });

  it.each([
    [{ $ref: "#" }],
    [{ $defs: { a: { $ref: "#/$defs/b" }, b: { $ref: "#/$defs/a" } }, $ref: "#/$defs/a" }],
    [{ $defs: { a: { allOf: [{ $ref: "#/$defs/a" }] } }, properties: { x: { $ref: "#/$defs/a" } } }],
    [{ $defs: { a: { not: { anyOf: [{ $ref: "#/$defs/a" }] } } } }],
  ])("refuses the loop %j without leaking a stack overflow", (schema) => {
    const problem = jsonSchemaProblem(schema);
    expect(problem).toMatch(/refers to itself in a loop/);
    expect(problem).not.toMatch(/call stack/i);
  });

  it("accepts recursive schemas that describe a value at each step (a tree)", () => {
    const tree = {
      type: "object",
      properties: { label: { type: "string" }, children: { type: "array", items: { $ref: "#" } } },
    };
    expect(jsonSchemaProblem(tree)).toBeNull();
    expect(
      jsonSchemaProblem({
        $defs: { "a/b": { type: "string" } },
        properties: { x: { $ref: "#/$defs/a~1b" }, y: { $ref: "#/$defs/%ff" } },
      }),
    ).not.toBeNull();
  });
});
