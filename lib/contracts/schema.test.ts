import { describe, expect, it } from "vitest";
import { checkAgainst, closeObjects } from "./schema";
import { applyResultView, declaredFields, declaredView } from "./result-view";

// The destination union, as an MCP server would publish it (open objects).
const destination = {
  type: "object",
  required: ["customer_id", "destination"],
  properties: {
    customer_id: { type: "string", minLength: 1 },
    destination: {
      oneOf: [
        {
          type: "object",
          required: ["kind", "address_id"],
          properties: { kind: { const: "saved" }, address_id: { type: "string" } },
        },
        {
          type: "object",
          required: ["kind", "line1", "city", "country"],
          properties: {
            kind: { const: "new" },
            line1: { type: "string" },
            city: { type: "string" },
            country: { type: "string", pattern: "^[A-Z]{2}$" },
          },
        },
      ],
    },
  },
};

describe("closeObjects", () => {
  const closed = closeObjects(destination) as Record<string, unknown>;

  it("closes the root and each union branch, so an invented field is refused", () => {
    expect(
      checkAgainst(
        closed,
        { customer_id: "C-1", destination: { kind: "saved", address_id: "A" }, note: "x" },
        "lenient",
      ),
    ).toMatchObject({ field: "/note", message: "is not an allowed field" });
    expect(
      checkAgainst(
        closed,
        { customer_id: "C-1", destination: { kind: "saved", address_id: "A", city: "Lyon" } },
        "lenient",
      )?.field,
    ).toBe("/destination/city");
    expect(
      checkAgainst(
        destination,
        { customer_id: "C-1", destination: { kind: "saved", address_id: "A" }, note: "x" },
        "lenient",
      ),
    ).toBeNull();
  });

  it("points at the wrong field of the chosen branch, or at an unknown discriminant", () => {
    expect(
      checkAgainst(
        closed,
        { customer_id: "C-1", destination: { kind: "new", line1: "1 rue", city: "Lyon", country: "fr" } },
        "lenient",
      )?.field,
    ).toBe("/destination/country");
    expect(
      checkAgainst(closed, { customer_id: "C-1", destination: { kind: "moon", address_id: "A" } }, "lenient"),
    ).toMatchObject({ field: "/destination/kind", message: 'must be one of "saved", "new"' });
    // Fields of both branches mixed: the chosen branch (by kind) refuses the other's field.
    expect(
      checkAgainst(
        closed,
        { customer_id: "C-1", destination: { kind: "saved", address_id: "A", line1: "1 rue" } },
        "lenient",
      )?.field,
    ).toBe("/destination/line1");
  });

  it("leaves objects under allOf open and keeps declared additionalProperties", () => {
    const schema = {
      allOf: [{ type: "object", properties: { a: { type: "string" } } }],
      properties: { m: { type: "object", additionalProperties: { type: "number" }, properties: {} } },
    };
    const out = closeObjects(schema) as {
      allOf: Record<string, unknown>[];
      properties: { m: Record<string, unknown> };
    };
    expect(out.allOf[0].additionalProperties).toBeUndefined();
    expect(out.properties.m.additionalProperties).toEqual({ type: "number" });
  });

  it("reports a missing required field at its own pointer", () => {
    expect(checkAgainst(closed, { destination: { kind: "saved", address_id: "A" } }, "lenient")).toMatchObject({
      field: "/customer_id",
      message: "is required",
    });
  });
});

describe("result view", () => {
  const customer = {
    customer_id: "C-1",
    name: "Camille",
    api_token: "s3cr3t",
    address: { city: "Paris", internal_note: "VIP" },
    orders: [
      { id: "O1", margin: 12 },
      { id: "O2", margin: 3 },
    ],
  };

  it("keeps only the listed fields, nested and through arrays", () => {
    expect(applyResultView(customer, ["/customer_id", "/name", "/address/city", "/orders/id"])).toEqual({
      customer_id: "C-1",
      name: "Camille",
      address: { city: "Paris" },
      orders: [{ id: "O1" }, { id: "O2" }],
    });
  });

  it("cuts everything when the view is empty and nothing when it names the root", () => {
    expect(applyResultView(customer, [])).toEqual({});
    expect(applyResultView(customer, [""])).toEqual(customer);
  });

  it("defaults to the fields the output schema declares", () => {
    expect(declaredFields({ type: "object", properties: { a: {}, "b/c": {} } })).toEqual(["/a", "/b~1c"]);
    expect(applyResultView({ "b/c": 1, d: 2 }, declaredFields({ properties: { "b/c": {} } }))).toEqual({ "b/c": 1 });
  });

  it("derives a view of every declared field at every depth, through arrays, branches and local refs", () => {
    const schema = {
      type: "object",
      $defs: { line: { type: "object", properties: { sku: { type: "string" } } } },
      properties: {
        owner: { type: "object", properties: { name: { type: "string" }, "a/b": { type: "integer" } } },
        lines: { type: "array", items: { $ref: "#/$defs/line" } },
        tags: { type: "object", additionalProperties: { type: "string" } },
        notes: { type: "array", items: { type: "string" } },
        contact: { anyOf: [{ type: "null" }, { type: "object", properties: { kind: { type: "string" } } }] },
      },
    };
    expect(declaredView(schema)).toEqual([
      "/owner/name",
      "/owner/a~1b",
      "/lines/sku",
      "/tags",
      "/notes",
      "/contact/kind",
    ]);
    const answer = {
      owner: { name: "Camille", "a/b": 1, password_hash: "x" },
      lines: [
        { sku: "S1", cost: 3 },
        { sku: "S2", cost: 4 },
      ],
      tags: { any: "kept" },
      notes: ["n"],
      contact: { kind: "mail", private: true },
      leaked: 1,
    };
    expect(applyResultView(answer, declaredView(schema))).toEqual({
      owner: { name: "Camille", "a/b": 1 },
      lines: [{ sku: "S1" }, { sku: "S2" }],
      tags: { any: "kept" },
      notes: ["n"],
      contact: { kind: "mail" },
    });
    expect(applyResultView({ contact: null }, declaredView(schema))).toEqual({ contact: null });
  });

  it("keeps a schema without declared fields whole, and stops at a recursive ref", () => {
    expect(declaredView({ type: "object" })).toEqual([""]);
    const tree = { type: "object", properties: { name: { type: "string" }, child: { $ref: "#" } } };
    expect(declaredView(tree).length).toBeLessThan(32);
  });

  it("does not let a kept parent widen the view of its siblings", () => {
    expect(applyResultView({ a: { x: 1 }, b: 2 }, ["/a", "/a/x"])).toEqual({ a: { x: 1 } });
  });
});
