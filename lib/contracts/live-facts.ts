import { byPointer, walkSchema } from "./bounds";
import type { JsonSchema } from "./types";

// An input `enum` that lists live facts — ids of customers, warehouses, users,
// current plans — ages the day it is published: « N'encodez pas sous forme
// d'enums statiques les faits qui dépendent de données vivantes. » Stable
// vocabulary (draft, approved, cancelled) belongs in the schema; changing ids
// are resolved with a read tool and checked by the system of record when the
// call runs. This module spots the enums that look like live facts, for the
// reviewer of an MCP tool (at sync and review) and for the built-in contracts
// (the contracts lock test refuses any).

/** More values than this in one enum looks like a list of records, not a vocabulary. */
export const MANY_ENUM_VALUES = 20;

/** Shown to the reviewer with each flag: the doctrine's own words, then what to do. */
export const LIVE_FACT_REASON =
  "« N'encodez pas sous forme d'enums statiques les faits qui dépendent de données vivantes. Une liste d'identifiants d'entrepôts, d'utilisateurs ou de forfaits actuels vieillit. » Résolvez ces identifiants avec un outil de lecture, puis validez-les contre le système de référence au moment de l'exécution.";

export type LiveFactSignal = "many_values" | "id_shaped" | "changed_between_syncs";

export interface LiveFactEnum {
  /** JSON pointer into the input schema of the enum. */
  pointer: string;
  signals: LiveFactSignal[];
  value_count: number;
  /** Up to three of the values that look like ids. */
  id_examples: string[];
  reason: string;
}

const ID_SHAPES = [
  /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i, // uuid
  /^[0-9A-HJKMNP-TV-Z]{26}$/, // ulid
  /^[A-Za-z]{1,16}[_-](?=[A-Za-z0-9]*[0-9])[A-Za-z0-9]{2,}$/, // prefix_xxx with a digit: user_291, C-1842, wh_01hx
  /^[0-9]{6,}$/, // long digits
];

/** A value shaped like a record's identifier rather than a word of a vocabulary. */
export function isIdShaped(value: unknown): boolean {
  if (typeof value === "number") return Number.isInteger(value) && Math.abs(value) >= 100_000;
  return typeof value === "string" && ID_SHAPES.some((shape) => shape.test(value));
}

function enumsOf(schema: JsonSchema | null | undefined): Map<string, unknown[]> {
  const out = new Map<string, unknown[]>();
  walkSchema(schema, "", (node, pointer) => {
    if (Array.isArray(node.enum)) out.set(pointer, node.enum as unknown[]);
  });
  return out;
}

function sameValues(a: unknown[], b: unknown[]): boolean {
  const key = (values: unknown[]) =>
    values
      .map((v) => JSON.stringify(v))
      .sort()
      .join("\n");
  return key(a) === key(b);
}

/**
 * The enums of `schema` that look like live facts: many values, id-shaped
 * values, or values that changed since `previous` (the same tool's schema at
 * the previous sync, or at its last review).
 */
export function liveFactEnums(schema: JsonSchema, previous?: JsonSchema | null): LiveFactEnum[] {
  const before = previous ? enumsOf(previous) : new Map<string, unknown[]>();
  const out: LiveFactEnum[] = [];
  for (const [pointer, values] of enumsOf(schema)) {
    const ids = values.filter(isIdShaped);
    const signals: LiveFactSignal[] = [];
    if (values.length > MANY_ENUM_VALUES) signals.push("many_values");
    if (ids.length > 0) signals.push("id_shaped");
    const earlier = before.get(pointer);
    if (earlier && !sameValues(earlier, values)) signals.push("changed_between_syncs");
    if (signals.length)
      out.push({
        pointer,
        signals,
        value_count: values.length,
        id_examples: ids.slice(0, 3).map(String),
        reason: LIVE_FACT_REASON,
      });
  }
  return byPointer(out);
}
