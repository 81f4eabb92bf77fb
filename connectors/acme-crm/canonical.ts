import { createHash } from "node:crypto";

// Canonical JSON in the spirit of RFC 8785 (JCS): object keys sorted by UTF-16
// code units, no insignificant whitespace, ECMAScript number and string
// serialisation. Enough for the plain JSON values tool arguments are made of.
export function canonicalJson(value: unknown): string {
  if (value === null || typeof value === "boolean" || typeof value === "string") {
    return JSON.stringify(value);
  }
  if (typeof value === "number") {
    if (!Number.isFinite(value)) throw new TypeError("canonicalJson: non-finite number");
    return JSON.stringify(value);
  }
  if (Array.isArray(value)) {
    return `[${value.map((v) => canonicalJson(v === undefined ? null : v)).join(",")}]`;
  }
  if (typeof value === "object") {
    const obj = value as Record<string, unknown>;
    const keys = Object.keys(obj)
      .filter((k) => obj[k] !== undefined)
      .sort();
    return `{${keys.map((k) => `${JSON.stringify(k)}:${canonicalJson(obj[k])}`).join(",")}}`;
  }
  throw new TypeError(`canonicalJson: unsupported value of type ${typeof value}`);
}

/** SHA-256 (hex) of the canonical JSON of the arguments, `idempotency_key` excluded. */
export function argumentsSha256(args: Record<string, unknown>): string {
  const { idempotency_key: _ignored, ...rest } = args;
  return createHash("sha256").update(canonicalJson(rest), "utf8").digest("hex");
}
