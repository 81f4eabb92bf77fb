import { createHash } from "node:crypto";
import { canonicalJson as jcs } from "@/lib/json/canonical";

// RFC 8785 (JSON Canonicalization Scheme) and the SHA-256 that binds an
// approval to exactly one set of arguments. The approver's screen, the stored
// proposal and the commit all hash through here, so "same arguments" means the
// same bytes everywhere. The serialisation is lib/json's (the `canonicalize`
// package is ESM-only and cannot load in the CommonJS seed and bench scripts);
// index.test.ts checks it byte for byte against `canonicalize` on random JSON.

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
    value.forEach((item, index) => assertPlainJson(item, `${path}/${index}`));
    return;
  }
  if (typeof value === "object") {
    const proto = Object.getPrototypeOf(value);
    if (proto !== Object.prototype && proto !== null) throw new NotCanonicalizable(`non-plain object at ${path || "/"}`);
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
