import { describe, expect, it } from "vitest";
import { currentBuiltinContract } from "./builtin";
import { contractCases } from "./cases";
import { checkAgainst, closeObjects } from "./schema";

// The generator is checked against the schemas themselves: each "refused"
// case must fail validation at its field, each "accepted" case must pass.

function verify(schema: Record<string, unknown>, example: unknown, mode: "strict" | "lenient" = "strict") {
  const cases = contractCases(schema, example);
  expect(checkAgainst(schema, example, mode)).toBeNull();
  for (const c of cases) {
    const violation = checkAgainst(schema, c.arguments, mode);
    if (c.expect === "accepted") expect(violation, c.name).toBeNull();
    else expect(violation?.field, c.name).toBe(c.field);
  }
  return cases;
}

describe("contractCases", () => {
  it("covers a string field: missing, empty, too long, at its maximum, wrong primitive, invented field", () => {
    const cases = verify(currentBuiltinContract("calculate")!.input_schema, { expression: "1 + 1" });
    expect(cases.map((c) => c.name)).toEqual([
      "/ with an invented field",
      "/expression missing",
      "/expression wrong primitive",
      "/expression empty",
      "/expression one character too long",
      "/expression at its maximum length",
    ]);
  });

  it("covers numbers at and just past their bounds, integers, arrays and nested items", () => {
    const cases = verify(currentBuiltinContract("create_chart")!.input_schema, {
      type: "bar",
      title: "T",
      series: [{ name: "s", points: [{ x: "a", y: 1 }] }],
    });
    const names = cases.map((c) => c.name);
    expect(names).toEqual(
      expect.arrayContaining([
        "/type outside the enum",
        "/series with one item too few",
        "/series with one item too many",
        "/series/0/points/0 with an invented field",
        "/series/0/name empty",
      ]),
    );
    const search = verify(currentBuiltinContract("search_text")!.input_schema, { query: "q", max_results: 5 });
    expect(search.map((c) => c.name)).toEqual(
      expect.arrayContaining([
        "/max_results at its minimum",
        "/max_results just below its minimum",
        "/max_results at its maximum",
        "/max_results just above its maximum",
        "/max_results not an integer",
      ]),
    );
  });

  it("mixes union branches and tries an unknown discriminant", () => {
    const schema = closeObjects({
      type: "object",
      required: ["destination"],
      properties: {
        destination: {
          oneOf: [
            {
              type: "object",
              required: ["kind", "address_id"],
              properties: { kind: { const: "saved" }, address_id: { type: "string" } },
            },
            {
              type: "object",
              required: ["kind", "city"],
              properties: { kind: { const: "new" }, city: { type: "string", minLength: 1 } },
            },
          ],
        },
      },
    }) as Record<string, unknown>;
    const cases = verify(schema, { destination: { kind: "saved", address_id: "A" } }, "lenient");
    expect(cases.map((c) => c.name)).toEqual(
      expect.arrayContaining(["/destination with an unknown kind", "/destination mixing in city from the new branch"]),
    );
  });

  it("tries an impossible calendar date and a real one on a civil date, in both validators", () => {
    for (const mode of ["strict", "lenient"] as const) {
      // A schema object per mode: compiled functions are cached by schema object.
      const schema = {
        type: "object",
        properties: { resume_on: { type: "string", format: "date" } },
        required: ["resume_on"],
        additionalProperties: false,
      };
      const cases = verify(schema, { resume_on: "2026-03-01" }, mode);
      expect(cases.filter((c) => c.name.includes("calendar date")).map((c) => [c.arguments, c.expect])).toEqual([
        [{ resume_on: "2026-02-30" }, "refused"],
        [{ resume_on: "2028-02-29" }, "accepted"],
      ]);
      expect(checkAgainst(schema, { resume_on: "2027-02-29" }, mode)?.field).toBe("/resume_on");
    }
  });
});
