import { describe, expect, it } from "vitest";
import { canonicalJson } from "./canonical";

describe("canonicalJson", () => {
  it("sorts keys recursively and drops whitespace", () => {
    expect(canonicalJson({ b: 1, a: { d: [3, { z: true, y: null }], c: "x" } })).toBe('{"a":{"c":"x","d":[3,{"y":null,"z":true}]},"b":1}');
  });

  it("orders keys by UTF-16 code units (RFC 8785 §3.2.3)", () => {
    expect(canonicalJson({ "\u20ac": 1, "\r": 2, "\ud83d\ude00": 3, "1": 4, a: 5 })).toBe('{"\\r":2,"1":4,"a":5,"€":1,"😀":3}');
  });

  it("serialises numbers as ECMAScript does and refuses non-finite ones", () => {
    expect(canonicalJson([1e21, 0.1, -0, 1.5e-7])).toBe("[1e+21,0.1,0,1.5e-7]");
    expect(() => canonicalJson(Number.NaN)).toThrow(TypeError);
  });

  it("drops undefined members like JSON.stringify", () => {
    expect(canonicalJson({ a: undefined, b: [undefined] })).toBe('{"b":[null]}');
  });
});
