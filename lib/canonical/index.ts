import { createHash } from "node:crypto";

// The one canonical JSON of the project: RFC 8785 (JSON Canonicalization
// Scheme), and the SHA-256 that binds an approval to exactly one set of
// arguments, a contract to its fingerprint, a tool to its reviewed shape. The
// approver's screen, the stored proposal and the commit all hash through here,
// so "same value" means the same bytes everywhere. It refuses what JSON cannot
// represent (undefined, NaN, class instances) instead of dropping it; a value
// built in code with optional members goes through `plainJson` first, which
// drops them exactly as JSON.stringify does. The serialiser is written here
// because the `canonicalize` package is ESM-only and cannot load in the
// CommonJS seed and bench scripts; index.test.ts checks it byte for byte
// against `canonicalize` on random JSON.

/** Keys sorted by UTF-16 code units, no insignificant whitespace, ECMAScript number and string forms. */
function jcs(value: unknown): string {
  if (value === null || typeof value === "boolean" || typeof value === "string" || typeof value === "number")
    return JSON.stringify(value);
  if (Array.isArray(value)) return `[${value.map(jcs).join(",")}]`;
  const record = value as Record<string, unknown>;
  // Default sort compares UTF-16 code units, as RFC 8785 requires.
  return `{${Object.keys(record)
    .sort()
    .map((key) => `${JSON.stringify(key)}:${jcs(record[key])}`)
    .join(",")}}`;
}

export class NotCanonicalizable extends Error {
  constructor(reason: string) {
    super(`Value cannot be canonicalized: ${reason}`);
    this.name = "NotCanonicalizable";
  }
}

/** Refuses what JSON cannot represent instead of letting it vanish or turn into null silently. */
function assertPlainJson(value: unknown, path: string): void {
  if (value === null || typeof value === "string" || typeof value === "boolean") return;
  if (typeof value === "number") {
    if (!Number.isFinite(value)) throw new NotCanonicalizable(`non-finite number at ${path || "/"}`);
    return;
  }
  if (Array.isArray(value)) {
    // Indexes, not forEach: a hole in a sparse array is refused like an undefined item.
    for (let index = 0; index < value.length; index++) assertPlainJson(value[index], `${path}/${index}`);
    return;
  }
  if (typeof value === "object") {
    const proto = Object.getPrototypeOf(value);
    if (proto !== Object.prototype && proto !== null)
      throw new NotCanonicalizable(`non-plain object at ${path || "/"}`);
    for (const [key, item] of Object.entries(value)) {
      if (item === undefined) throw new NotCanonicalizable(`undefined at ${path}/${key}`);
      assertPlainJson(item, `${path}/${key.replace(/~/g, "~0").replace(/\//g, "~1")}`);
    }
    return;
  }
  throw new NotCanonicalizable(`${typeof value} at ${path || "/"}`);
}

/** The RFC 8785 canonical JSON text of a plain JSON value. */
export function canonicalJson(value: unknown): string {
  assertPlainJson(value, "");
  return jcs(value);
}

export function sha256Hex(text: string): string {
  return createHash("sha256").update(text, "utf8").digest("hex");
}

/** SHA-256 (hex) of the canonical JSON: the fingerprint an approval names. */
export function canonicalSha256(value: unknown): string {
  return sha256Hex(canonicalJson(value));
}

/** A deep copy that has gone through canonical JSON: what is stored is exactly what was hashed. */
export function canonicalCopy<T>(value: T): T {
  return JSON.parse(canonicalJson(value)) as T;
}

/**
 * What JSON.stringify keeps of a value built in code: undefined members
 * dropped, undefined array items as null. For fingerprints of objects with
 * optional members (contracts, tool shapes), whose stored hashes were made
 * that way; never for arguments, where an undefined is refused.
 */
export function plainJson(value: unknown): unknown {
  if (Array.isArray(value)) return value.map((item) => (item === undefined ? null : plainJson(item)));
  if (value !== null && typeof value === "object") {
    return Object.fromEntries(
      Object.entries(value)
        .filter(([, item]) => item !== undefined)
        .map(([key, item]) => [key, plainJson(item)]),
    );
  }
  return value;
}
