import { describe, expect, it } from "vitest";
import { argumentChanges } from "./revision-diff";

describe("argumentChanges", () => {
  it("names each changed leaf by its JSON Pointer, descending into objects", () => {
    const before = {
      customer_id: "C-1842",
      destination: { kind: "new", line1: "1 rue A", city: "Lyon", postal_code: "69002", country: "FR" },
    };
    const after = { ...before, destination: { ...before.destination, city: "Villeurbanne", postal_code: "69100" } };
    expect(argumentChanges(before, after)).toEqual([
      { field: "/destination/city", before: "Lyon", after: "Villeurbanne" },
      { field: "/destination/postal_code", before: "69002", after: "69100" },
    ]);
  });

  it("shows a key that appears or disappears, compares arrays whole, and escapes pointers", () => {
    expect(argumentChanges({ a: 1, "x/y": [1, 2] }, { b: 2, "x/y": [1, 2] })).toEqual([
      { field: "/a", before: 1, after: null },
      { field: "/b", before: null, after: 2 },
    ]);
    expect(argumentChanges({ to: ["a@x.fr"] }, { to: ["b@x.fr"] })).toEqual([
      { field: "/to", before: ["a@x.fr"], after: ["b@x.fr"] },
    ]);
    expect(argumentChanges({ "a/b~c": 1 }, { "a/b~c": 2 })[0].field).toBe("/a~1b~0c");
  });

  it("finds nothing when the values are canonically equal", () => {
    expect(argumentChanges({ a: { b: 1, c: 2 } }, { a: { c: 2, b: 1 } })).toEqual([]);
  });
});
