import { describe, expect, it } from "vitest";
import { shapeChanges, suggestedWritesData, toolFingerprint, type ReviewedShape } from "./fingerprint";

const shape: ReviewedShape = {
  description: "Read one customer.",
  input_schema: {
    type: "object",
    properties: { customer_id: { type: "string" } },
    required: ["customer_id"],
    additionalProperties: false,
  },
  output_schema: { type: "object", properties: { version: { type: "integer" } } },
};

describe("toolFingerprint", () => {
  it("does not depend on key order", () => {
    const reordered = {
      output_schema: { properties: { version: { type: "integer" } }, type: "object" },
      input_schema: {
        additionalProperties: false,
        required: ["customer_id"],
        properties: { customer_id: { type: "string" } },
        type: "object",
      },
      description: "Read one customer.",
    };
    expect(toolFingerprint(reordered)).toBe(toolFingerprint(shape));
    expect(toolFingerprint(shape)).toMatch(/^[0-9a-f]{64}$/);
  });

  it("changes with the description, the input schema or the output schema", () => {
    const base = toolFingerprint(shape);
    expect(toolFingerprint({ ...shape, description: "Read one customer!" })).not.toBe(base);
    expect(toolFingerprint({ ...shape, input_schema: { ...(shape.input_schema as object), required: [] } })).not.toBe(
      base,
    );
    expect(toolFingerprint({ ...shape, output_schema: null })).not.toBe(base);
  });
});

describe("shapeChanges", () => {
  it("lists every field of a tool never reviewed, with before = null", () => {
    expect(shapeChanges(null, shape).map((c) => [c.field, c.before])).toEqual([
      ["description", null],
      ["input_schema", null],
      ["output_schema", null],
    ]);
  });

  it("lists only what changed since the review", () => {
    const after = { ...shape, description: "Read one customer, with orders." };
    expect(shapeChanges(shape, after)).toEqual([
      { field: "description", before: "Read one customer.", after: "Read one customer, with orders." },
    ]);
    expect(shapeChanges(shape, { ...shape })).toEqual([]);
  });
});

describe("suggestedWritesData", () => {
  it("suggests a read only on an explicit readOnlyHint: true", () => {
    expect(suggestedWritesData({ readOnlyHint: true })).toBe(false);
    expect(suggestedWritesData({ readOnlyHint: false })).toBe(true);
    expect(suggestedWritesData({ readOnlyHint: "true" })).toBe(true);
    expect(suggestedWritesData({})).toBe(true);
    expect(suggestedWritesData(null)).toBe(true);
  });
});
