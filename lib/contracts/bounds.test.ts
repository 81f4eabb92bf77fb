import { describe, expect, it } from "vitest";
import { GUICHET_BOUNDS, missingBounds, withGuichetBounds } from "./bounds";
import { checkAgainst } from "./schema";

const open = {
  type: "object",
  properties: {
    name: { type: "string" },
    day: { type: "string", format: "date" },
    plan: { type: "string", enum: ["free", "pro"] },
    kind: { const: "saved" },
    count: { type: "integer", minimum: 0 },
    ratio: { type: "number", exclusiveMinimum: 0, exclusiveMaximum: 1 },
    tags: { type: "array", items: { type: "string", maxLength: 20 } },
    meta: { type: "object", additionalProperties: { type: "string", maxLength: 10 } },
    choice: { anyOf: [{ type: "null" }, { type: "number", maximum: 3 }] },
  },
  required: ["name"],
  additionalProperties: false,
  if: { properties: { name: { const: "x" } } },
  then: { properties: { tags: { minItems: 1 } } },
};

describe("missingBounds", () => {
  it("names each field lacking a bound its type allows, by schema pointer", () => {
    expect(missingBounds(open)).toEqual([
      { pointer: "/properties/choice/anyOf/1", keyword: "minimum" },
      { pointer: "/properties/count", keyword: "maximum" },
      { pointer: "/properties/meta", keyword: "maxProperties" },
      { pointer: "/properties/name", keyword: "maxLength" },
      { pointer: "/properties/tags", keyword: "maxItems" },
    ]);
  });

  it("counts a closed object, an enum, a const and a length-fixing format as bounded", () => {
    expect(missingBounds({ type: "object", properties: {}, additionalProperties: false })).toEqual([]);
    expect(missingBounds({ type: "string", enum: ["a"] })).toEqual([]);
    expect(missingBounds({ type: "string", format: "date-time" })).toEqual([]);
    expect(missingBounds({ type: "string", format: "email" })).toEqual([{ pointer: "", keyword: "maxLength" }]);
    expect(missingBounds({ type: "string", pattern: "^C-[0-9]+$" })).toEqual([{ pointer: "", keyword: "maxLength" }]);
    expect(missingBounds({ type: "object" })).toEqual([{ pointer: "", keyword: "maxProperties" }]);
  });
});

describe("withGuichetBounds", () => {
  it("adds Guichet's default for each missing bound, says which, and leaves the original alone", () => {
    const before = JSON.stringify(open);
    const { schema, added } = withGuichetBounds(open);
    expect(JSON.stringify(open)).toBe(before);
    expect(added).toEqual(missingBounds(open).map((m) => ({ ...m, value: GUICHET_BOUNDS[m.keyword] })));
    expect(missingBounds(schema)).toEqual([]);
    const tooLong = { name: "x".repeat(GUICHET_BOUNDS.maxLength + 1) };
    expect(checkAgainst(schema, tooLong, "lenient")?.field).toBe("/name");
    expect(checkAgainst(schema, { name: "x".repeat(GUICHET_BOUNDS.maxLength) }, "lenient")).toBeNull();
    expect(checkAgainst(open, tooLong, "lenient")).toBeNull();
  });

  it("lists the same bounds, in pointer order, whatever order the schema's keys were stored in", () => {
    const reversed = JSON.parse(JSON.stringify(open), (_key, value) =>
      value && typeof value === "object" && !Array.isArray(value)
        ? Object.fromEntries(Object.entries(value as object).reverse())
        : value,
    ) as Record<string, unknown>;
    expect(Object.keys(reversed.properties as object)[0]).toBe("choice");
    expect(withGuichetBounds(reversed).added).toEqual(withGuichetBounds(open).added);
  });

  it("adds nothing to a schema that bounds every field", () => {
    const bounded = {
      type: "object",
      properties: { a: { type: "string", maxLength: 3 } },
      additionalProperties: false,
    };
    expect(withGuichetBounds(bounded)).toEqual({ schema: bounded, added: [] });
  });
});
