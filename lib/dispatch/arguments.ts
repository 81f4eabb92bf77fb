import { createHash } from "node:crypto";
import { canonicalJson } from "@/lib/canonical";
import { stringifyDeep } from "@/lib/json/deep";

// What the dispatcher keeps of a call's arguments: their size and a hash.
// Raw arguments are never stored or logged; a run's explicit debug flag keeps a
// redacted copy.

/** No contract accepts more; checked before the registry is even asked. */
export const MAX_ARGUMENT_BYTES = 262_144;
/** No contract's schema, no executor needs deeper arguments; deeper ones are refused before anything walks them. */
export const MAX_ARGUMENT_DEPTH = 64;

/** Size of the arguments as JSON; callers check MAX_ARGUMENT_DEPTH first, so the native serializer is safe. */
export function argumentBytes(args: unknown): number {
  return Buffer.byteLength(JSON.stringify(args ?? null), "utf8");
}

/** SHA-256 of the RFC 8785 canonical JSON of the arguments: equal arguments, equal hash, whatever the key order. */
export function argumentsSha256(args: unknown): string {
  let text: string;
  try {
    text = canonicalJson(args ?? null);
  } catch {
    // Not canonicalisable (too deep for the recursive canonical form, or not plain JSON): still one stable hash of what was sent.
    text = stringifyDeep(args ?? null);
  }
  return createHash("sha256").update(text, "utf8").digest("hex");
}

const SECRET_NAMES = /token|secret|password|passwd|authorization|api[_-]?key|credential|cookie/i;

/** A copy for the debug payload with every value under a secret-looking name replaced. */
export function redactArguments(value: unknown, depth = 0): unknown {
  if (depth > 32) return "[truncated]";
  if (Array.isArray(value)) return value.map((item) => redactArguments(item, depth + 1));
  if (value && typeof value === "object") {
    return Object.fromEntries(
      Object.entries(value).map(([key, item]) => [
        key,
        SECRET_NAMES.test(key) ? "[redacted]" : redactArguments(item, depth + 1),
      ]),
    );
  }
  return value;
}

export interface ParsedToolName {
  key: string;
  version: number | null;
}

const TOOL_NAME = /^([A-Za-z0-9_.-]{1,200})(?:@([0-9]{1,9}))?$/;

/** `key` or `key@version`; null for anything else (which no registry entry can match). */
export function parseToolName(name: string): ParsedToolName | null {
  const match = TOOL_NAME.exec(name);
  if (!match) return null;
  return { key: match[1], version: match[2] === undefined ? null : Number(match[2]) };
}
