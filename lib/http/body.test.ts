import { describe, expect, it } from "vitest";
import { findLoneSurrogate, isJsonMediaType, jsonDepthExceeds } from "./body";

describe("isJsonMediaType", () => {
  it.each([
    ["application/json", true],
    ["application/json; charset=utf-8", true],
    ["APPLICATION/JSON", true],
    ["application/merge-patch+json", true],
    ["application/vnd.api+json;charset=utf-8", true],
    ["application/jsonx", false],
    ["application/json-seq", false],
    ["application/json+x", false],
    ["text/json", false],
    ["application/+json", false],
    ["", false],
  ])("%s → %s", (type, expected) => expect(isJsonMediaType(type)).toBe(expected));
});

describe("jsonDepthExceeds", () => {
  it("counts nesting of arrays and objects, not brackets in strings or escaped quotes", () => {
    expect(jsonDepthExceeds("[[[]]]", 3)).toBe(false);
    expect(jsonDepthExceeds("[[[[]]]]", 3)).toBe(true);
    expect(jsonDepthExceeds('{"a":{"b":[1]}}', 3)).toBe(false);
    expect(jsonDepthExceeds('{"a":{"b":[{}]}}', 3)).toBe(true);
    expect(jsonDepthExceeds(`{"s":"${"[".repeat(100)}"}`, 1)).toBe(false);
    expect(jsonDepthExceeds(`{"s":"a\\"[[[["}`, 1)).toBe(false);
    expect(jsonDepthExceeds(`[${"[]".repeat(1000)}]`, 2)).toBe(false);
  });

  it("stops early on a huge depth", () => {
    expect(jsonDepthExceeds("[".repeat(1_000_000), 64)).toBe(true);
  });
});

describe("findLoneSurrogate", () => {
  it("finds lone high and low surrogates in values and keys, and accepts pairs", () => {
    expect(findLoneSurrogate({ a: "x\ud800y" })).toBe("a");
    expect(findLoneSurrogate({ a: [{ b: "\udc00" }] })).toBe("a[0].b");
    expect(findLoneSurrogate({ a: { ["\ud83d"]: 1 } })).toBe("a");
    expect(findLoneSurrogate({ a: "😀", b: ["\ud83d\ude00"] })).toBeNull();
    expect(findLoneSurrogate("end\ud800")).toBe("body");
    expect(findLoneSurrogate(null)).toBeNull();
  });
});
