import { describe, expect, it } from "vitest";
import { fieldLabel } from "./metrics";

describe("fieldLabel", () => {
  it("folds array indexes so that one field is one label value", () => {
    expect(fieldLabel("/items/3/sku")).toBe("/items/*/sku");
    expect(fieldLabel("/items/12")).toBe("/items/*");
    expect(fieldLabel("/address/line1")).toBe("/address/line1");
  });

  it("bounds the length and maps no field to the empty label", () => {
    expect(fieldLabel(null)).toBe("");
    expect(fieldLabel(`/${"a".repeat(500)}`)).toHaveLength(120);
  });
});
