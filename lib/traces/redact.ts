// Redaction of what a trace keeps: arguments and results with every personal
// or secret value replaced by a placeholder of the same shape.
//
// A placeholder is the value "masked": every letter becomes x (X when upper
// case), every digit 1, everything else (punctuation, spaces, @, +) stays. So
// jean.dupont@acme.fr becomes xxxx.xxxxxx@xxxx.xx, +33 6 12 34 56 78 becomes
// +11 1 11 11 11 11 and FR7630006000011234567890189 becomes XX11111111111111111111111:
// same length, same character classes, same separators. A replay of a redacted
// call is then honest for the rules a schema can state about such a value
// (type, format email, minLength/maxLength, most patterns): a redacted e-mail
// still passes `format: email`. What a mask cannot keep — an enum of sensitive
// values, a pattern fixing some letters — is named in the trace (`redactions`,
// with each pointer and its kind), so a refusal on a redacted field is
// reported as such rather than taken for a contract change.
// Numbers keep their sign and order of magnitude (4321 → 1000), booleans
// become false, null stays null.

export type RedactionKind = "secret" | "email" | "phone" | "iban" | "sensitive";

export interface Redaction {
  pointer: string;
  kind: RedactionKind;
}

export interface Redacted {
  value: unknown;
  redactions: Redaction[];
}

/** Keys whose value is a secret whatever it looks like. */
export const SECRET_KEY = /token|secret|password|passwd|authorization|api[_-]?key|credential|cookie|private[_-]?key/i;

// Found anywhere inside a string (free text included); each match is masked in place.
const PATTERNS: { kind: RedactionKind; pattern: RegExp }[] = [
  { kind: "email", pattern: /[\p{L}0-9._%+-]+@[\p{L}0-9-]+(?:\.[\p{L}0-9-]+)*\.\p{L}{2,}/gu },
  // ISO 13616: two letters, two check digits, 11 to 30 letters or digits, possibly in groups of four.
  { kind: "iban", pattern: /\b[A-Z]{2}\d{2}(?: ?[A-Z0-9]){11,30}\b/g },
  // Secret-looking tokens: a known key prefix, or 32+ characters mixing letters and digits.
  {
    kind: "secret",
    pattern:
      /\b(?:sk|pk|rk|gch|ghp|gho|xox[abprs]|AKIA)[-_][A-Za-z0-9_-]{12,}|\b(?=[A-Za-z0-9_-]{0,200}\d)(?=[A-Za-z0-9_-]{0,200}[A-Za-z])[A-Za-z0-9_-]{32,}\b/g,
  },
  // International (+33 6 12 34 56 78) or national (06 12 34 56 78) numbers of 9 to 15 digits.
  { kind: "phone", pattern: /(?:\+\d|\b0\d)(?:[ .-]?\d){7,13}\b/g },
];

const MAX_DEPTH = 64;

export function mask(text: string): string {
  return text
    .replace(/\p{Lu}/gu, "X")
    .replace(/\p{Ll}|\p{Lo}|\p{Lt}|\p{Lm}/gu, "x")
    .replace(/\p{Nd}/gu, "1");
}

function maskNumber(n: number): number {
  if (!Number.isFinite(n) || n === 0) return 0;
  const magnitude = 10 ** Math.floor(Math.log10(Math.abs(n)));
  return Math.sign(n) * (Number.isInteger(n) ? Math.max(1, magnitude) : magnitude);
}

/** Every leaf masked: a value under a secret key or a field the contract marks sensitive. */
function maskAll(value: unknown, depth: number): unknown {
  if (depth > MAX_DEPTH) return null;
  if (typeof value === "string") return mask(value);
  if (typeof value === "number") return maskNumber(value);
  if (typeof value === "boolean") return false;
  if (Array.isArray(value)) return value.map((item) => maskAll(item, depth + 1));
  if (value && typeof value === "object")
    return Object.fromEntries(Object.entries(value).map(([key, item]) => [key, maskAll(item, depth + 1)]));
  return null;
}

function maskPatterns(text: string, found: (kind: RedactionKind) => void): string {
  let out = text;
  for (const { kind, pattern } of PATTERNS) {
    out = out.replace(pattern, (match) => {
      found(kind);
      return mask(match);
    });
  }
  return out;
}

type Schema = Record<string, unknown>;
const asSchema = (value: unknown): Schema | null =>
  value && typeof value === "object" && !Array.isArray(value) ? (value as Schema) : null;

/** The subschemas that may describe a property (its own, and those of every branch that names it). */
function propertySchemas(schemas: Schema[], key: string): Schema[] {
  const out: Schema[] = [];
  const visit = (schema: Schema, depth: number) => {
    if (depth > 8) return;
    const own = asSchema(asSchema(schema.properties)?.[key]);
    if (own) out.push(own);
    else {
      const extra = asSchema(schema.additionalProperties);
      if (extra) out.push(extra);
    }
    for (const branchKey of ["allOf", "anyOf", "oneOf"]) {
      const branches = schema[branchKey];
      if (Array.isArray(branches)) branches.forEach((b) => asSchema(b) && visit(b as Schema, depth + 1));
    }
    for (const branchKey of ["then", "else"]) {
      const branch = asSchema(schema[branchKey]);
      if (branch) visit(branch, depth + 1);
    }
  };
  schemas.forEach((schema) => visit(schema, 0));
  return out;
}

function itemSchemas(schemas: Schema[]): Schema[] {
  return schemas.flatMap((schema) => {
    const items = asSchema(schema.items);
    return items ? [items] : [];
  });
}

const escapePointer = (key: string) => key.replace(/~/g, "~0").replace(/\//g, "~1");

/**
 * A redacted copy of a value: under a secret-looking key or a schema property
 * marked `x-sensitive: true` everything is masked; elsewhere e-mails, phone
 * numbers, IBANs and secret-looking tokens are masked where they appear.
 */
export function redact(value: unknown, schema?: unknown): Redacted {
  const redactions: Redaction[] = [];
  const walk = (item: unknown, pointer: string, schemas: Schema[], depth: number): unknown => {
    if (depth > MAX_DEPTH) return null;
    if (typeof item === "string") {
      let kind: RedactionKind | null = null;
      const out = maskPatterns(item, (found) => (kind ??= found));
      if (kind) redactions.push({ pointer, kind });
      return out;
    }
    if (Array.isArray(item))
      return item.map((entry, i) => walk(entry, `${pointer}/${i}`, itemSchemas(schemas), depth + 1));
    if (item && typeof item === "object") {
      return Object.fromEntries(
        Object.entries(item).map(([key, entry]) => {
          const path = `${pointer}/${escapePointer(key)}`;
          const sub = propertySchemas(schemas, key);
          const sensitive = sub.some((s) => s["x-sensitive"] === true);
          if (sensitive || SECRET_KEY.test(key)) {
            redactions.push({ pointer: path, kind: sensitive ? "sensitive" : "secret" });
            return [key, maskAll(entry, depth + 1)];
          }
          return [key, walk(entry, path, sub, depth + 1)];
        }),
      );
    }
    return item;
  };
  const root = asSchema(schema);
  return { value: walk(value, "", root ? [root] : [], 0), redactions };
}

/** A value the redaction should have masked and did not: where it is and what it looks like. */
export interface Leak {
  pointer: string;
  kind: RedactionKind;
}

/**
 * The leaks in a value meant to be redacted (a stored trace, a committed one),
 * found with the redaction's own detectors: a match is a leak unless it is
 * already a placeholder (masking it changes nothing), and every string under a
 * secret-looking key must be a placeholder. `redact(x).value` has none. A
 * SHA-256 hex digest under a `…_sha256` key is what it says, not a secret.
 */
export function findLeaks(value: unknown): Leak[] {
  const leaks: Leak[] = [];
  const walk = (item: unknown, pointer: string, underSecret: boolean, depth: number): void => {
    if (depth > MAX_DEPTH) return;
    if (typeof item === "string") {
      if (underSecret && mask(item) !== item) leaks.push({ pointer, kind: "secret" });
      for (const { kind, pattern } of PATTERNS)
        if ([...item.matchAll(pattern)].some((match) => mask(match[0]) !== match[0])) leaks.push({ pointer, kind });
      return;
    }
    if (Array.isArray(item)) item.forEach((entry, i) => walk(entry, `${pointer}/${i}`, underSecret, depth + 1));
    else if (item && typeof item === "object")
      for (const [key, entry] of Object.entries(item)) {
        const path = `${pointer}/${escapePointer(key)}`;
        // A key is text too: a planted address must not hide in one.
        walk(key, `${path}#key`, false, depth + 1);
        // The digests the recorder writes itself (tools_sha256: the tool list's) look like tokens and are not.
        if (/_sha256$/.test(key) && typeof entry === "string" && /^[0-9a-f]{64}$/.test(entry)) continue;
        walk(entry, path, underSecret || SECRET_KEY.test(key), depth + 1);
      }
  };
  walk(value, "", false, 0);
  return leaks;
}
