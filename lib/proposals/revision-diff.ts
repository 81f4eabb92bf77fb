import { z } from "zod";

// What a person's revision changed in a proposal's arguments, field by field:
// one entry per JSON Pointer whose canonical value differs, descending into
// objects (an address's city is its own line), arrays compared whole. Pure:
// the approval screen shows the same diff before the revision is sent.

export const ArgumentChange = z.object({ field: z.string(), before: z.unknown(), after: z.unknown() });
export const ArgumentChanges = z.array(ArgumentChange);
export type ArgumentChange = z.infer<typeof ArgumentChange>;

const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === "object" && value !== null && !Array.isArray(value);

/** Structural equality of JSON values (key order aside), as canonical JSON would compare them. */
function sameJson(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (Array.isArray(a) && Array.isArray(b)) return a.length === b.length && a.every((item, i) => sameJson(item, b[i]));
  if (isObject(a) && isObject(b)) {
    const keys = Object.keys(a);
    return (
      keys.length === Object.keys(b).length && keys.every((key) => Object.hasOwn(b, key) && sameJson(a[key], b[key]))
    );
  }
  return false;
}

const escape = (key: string) => key.replace(/~/g, "~0").replace(/\//g, "~1");

/** The field-level diff of two argument objects; keys only in `before` show `after: null`, and the reverse. */
export function argumentChanges(before: unknown, after: unknown, pointer = ""): ArgumentChange[] {
  if (isObject(before) && isObject(after)) {
    const keys = [...new Set([...Object.keys(before), ...Object.keys(after)])].sort();
    return keys.flatMap((key) =>
      argumentChanges(
        Object.hasOwn(before, key) ? before[key] : null,
        Object.hasOwn(after, key) ? after[key] : null,
        `${pointer}/${escape(key)}`,
      ),
    );
  }
  if (sameJson(before ?? null, after ?? null)) return [];
  return [{ field: pointer || "/", before: before ?? null, after: after ?? null }];
}
