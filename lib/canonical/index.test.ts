import canonicalize from "canonicalize";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { canonicalCopy, canonicalJson, canonicalSha256, NotCanonicalizable, plainJson, sha256Hex } from "./index";

describe("canonicalJson (RFC 8785)", () => {
  it("sorts keys recursively and drops insignificant whitespace", () => {
    expect(canonicalJson({ b: 1, a: { d: [3, { z: true, y: null }], c: "x" } })).toBe(
      '{"a":{"c":"x","d":[3,{"y":null,"z":true}]},"b":1}',
    );
  });

  it("does not depend on key order", () => {
    expect(canonicalSha256({ customer_id: "C-1842", destination: { kind: "saved", address_id: "ADDR-2" } })).toBe(
      canonicalSha256({ destination: { address_id: "ADDR-2", kind: "saved" }, customer_id: "C-1842" }),
    );
  });

  it("serialises numbers the ECMAScript way (the RFC's own examples)", () => {
    expect(canonicalJson([1e21, 1e-7, 0.1, -0, 100, 1.5e300, 333333333.3333333])).toBe(
      "[1e+21,1e-7,0.1,0,100,1.5e+300,333333333.3333333]",
    );
  });

  it("sorts keys by UTF-16 code units and escapes only what JSON must", () => {
    expect(canonicalJson({ "\u20ac": 1, "\r": 2, "1": 3, "\u00e9": 4, a: "é\u2028\n" })).toBe(
      '{"\\r":2,"1":3,"a":"é\u2028\\n","é":4,"€":1}',
    );
  });

  it("keeps array order: a reordered list is another call", () => {
    expect(canonicalSha256({ to: ["a@x.fr", "b@x.fr"] })).not.toBe(canonicalSha256({ to: ["b@x.fr", "a@x.fr"] }));
  });

  it("matches the canonicalize package byte for byte on random JSON", () => {
    fc.assert(
      fc.property(fc.jsonValue(), (value) => {
        // JSON.parse(JSON.stringify()) turns -0 into 0 and drops nothing else jsonValue makes.
        const plain = JSON.parse(JSON.stringify(value)) as unknown;
        expect(canonicalJson(plain)).toBe(canonicalize(plain));
      }),
      { numRuns: 500 },
    );
  });

  it("refuses values JSON cannot carry instead of dropping them", () => {
    expect(() => canonicalJson({ a: undefined })).toThrow(NotCanonicalizable);
    expect(() => canonicalJson({ a: Number.NaN })).toThrow(/non-finite number at \/a/);
    expect(() => canonicalJson([Infinity])).toThrow(NotCanonicalizable);
    expect(() => canonicalJson({ when: new Date(0) })).toThrow(/non-plain object/);
    expect(() => canonicalJson(() => 1)).toThrow(NotCanonicalizable);
    expect(() => canonicalJson(undefined)).toThrow(NotCanonicalizable);
  });
});

describe("hashes", () => {
  it("is the SHA-256 of the canonical text", () => {
    expect(sha256Hex("")).toBe("e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
    expect(canonicalSha256({ b: 2, a: 1 })).toBe(sha256Hex('{"a":1,"b":2}'));
  });

  it("changes with any value", () => {
    const base = { customer_id: "C-1842", expected_version: 17 };
    expect(canonicalSha256(base)).not.toBe(canonicalSha256({ ...base, expected_version: 18 }));
  });

  it("copies through canonical JSON", () => {
    const copy = canonicalCopy({ z: 1, a: [{ c: 2, b: 1 }] });
    expect(Object.keys(copy)).toEqual(["a", "z"]);
    expect(JSON.stringify(copy)).toBe('{"a":[{"b":1,"c":2}],"z":1}');
  });
});

describe("plainJson (values built in code, for fingerprints)", () => {
  it("drops undefined members and nulls undefined items, as JSON.stringify does, so stored fingerprints keep their bytes", () => {
    const built = { a: undefined, b: [undefined, 1], c: { d: undefined, e: "x" } };
    expect(canonicalJson(plainJson(built))).toBe('{"b":[null,1],"c":{"e":"x"}}');
    expect(canonicalJson(plainJson(built))).toBe(canonicalize(JSON.parse(JSON.stringify(built))));
  });

  it("is needed: canonicalJson itself refuses undefined, holes and class instances", () => {
    expect(() => canonicalJson({ a: undefined })).toThrow(NotCanonicalizable);
    expect(() => canonicalJson([1, , 2])).toThrow(NotCanonicalizable);
    expect(() => canonicalJson({ at: new Date(0) })).toThrow(NotCanonicalizable);
  });
});
