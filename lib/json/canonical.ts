// Canonical JSON (RFC 8785 / JCS) for the plain JSON values Guichet hashes:
// object keys sorted by UTF-16 code units, no insignificant whitespace,
// ECMAScript number and string serialisation. Written here rather than taken
// from the `canonicalize` package, which is ESM-only and cannot be required by
// the CommonJS scripts (seed, migrations) that share this code.

export function canonicalJson(value: unknown): string {
  if (value === null || typeof value === "boolean" || typeof value === "string") return JSON.stringify(value);
  if (typeof value === "number") {
    if (!Number.isFinite(value)) throw new TypeError("canonicalJson: non-finite number");
    return JSON.stringify(value);
  }
  if (Array.isArray(value)) return `[${value.map((item) => canonicalJson(item === undefined ? null : item)).join(",")}]`;
  if (typeof value === "object") {
    const record = value as Record<string, unknown>;
    // Default sort compares UTF-16 code units, as RFC 8785 requires.
    const keys = Object.keys(record).filter((key) => record[key] !== undefined).sort();
    return `{${keys.map((key) => `${JSON.stringify(key)}:${canonicalJson(record[key])}`).join(",")}}`;
  }
  throw new TypeError(`canonicalJson: unsupported value of type ${typeof value}`);
}
