import { describe, expect, it } from "vitest";
import { nestsDeeperThan, stringifyDeep } from "./deep";

const deepArray = (levels: number) => JSON.parse("[".repeat(levels) + "]".repeat(levels)) as unknown;

describe("nestsDeeperThan", () => {
  it("counts containers, not scalars", () => {
    expect(nestsDeeperThan("text", 0)).toBe(false);
    expect(nestsDeeperThan({}, 0)).toBe(true);
    expect(nestsDeeperThan({ a: [1, { b: 2 }] }, 3)).toBe(false);
    expect(nestsDeeperThan({ a: [1, { b: [] }] }, 3)).toBe(true);
  });

  it("walks 200 000 levels without a stack overflow", () => {
    expect(nestsDeeperThan(deepArray(200_000), 64)).toBe(true);
    expect(nestsDeeperThan(deepArray(64), 64)).toBe(false);
  });
});

describe("stringifyDeep", () => {
  it("matches JSON.stringify on ordinary values", () => {
    for (const value of [
      null,
      1,
      'é"\n',
      [],
      {},
      { a: [1, null, { b: "c" }], d: true, e: undefined },
      [undefined, 2],
    ]) {
      expect(stringifyDeep(value)).toBe(JSON.stringify(value));
    }
  });

  it("serialises 100 000 levels that JSON.stringify cannot", () => {
    const value = deepArray(100_000);
    expect(() => JSON.stringify(value)).toThrow(RangeError);
    expect(stringifyDeep(value)).toBe("[".repeat(100_000) + "]".repeat(100_000));
  });
});
