import type { JsonSchema } from "./types";

// Every field a contract publishes carries the bounds its type allows: « Toute
// limite omise devient une valeur que l'agent peut raisonnablement essayer. »
// A string has a maximum length (or an enum, a const or a format that fixes its
// length), a number both a minimum and a maximum, an array a maximum number of
// items, an object that stays open a maximum number of properties.
//
// `missingBounds` lists what a schema lacks (the contracts lock test fails on
// any); `withGuichetBounds` fills the gaps of an MCP tool's schema at review
// with Guichet's own defaults, below, and says which it added so the reviewer
// sees them.

/** Guichet's bounds for an MCP tool's field that has none of its own. The one place they are written. */
export const GUICHET_BOUNDS = {
  /** Characters of a string. */
  maxLength: 4_096,
  /** Both ends of a number or an integer (the integers a JavaScript number holds exactly). */
  minimum: -Number.MAX_SAFE_INTEGER,
  maximum: Number.MAX_SAFE_INTEGER,
  /** Items of an array. */
  maxItems: 100,
  /** Properties of an object that accepts properties it does not list. */
  maxProperties: 50,
} as const;

export type BoundKeyword = keyof typeof GUICHET_BOUNDS;

/** Formats whose values have a fixed or short length: a string of that format needs no maxLength. */
export const LENGTH_BOUNDING_FORMATS = new Set(["date", "time", "date-time", "uuid", "ipv4", "ipv6", "duration"]);

export interface MissingBound {
  /** JSON pointer into the schema of the field lacking the bound. */
  pointer: string;
  keyword: BoundKeyword;
}

export interface AddedBound extends MissingBound {
  value: number;
}

const MAPS = ["properties", "patternProperties", "$defs", "definitions", "dependentSchemas"] as const;
// Alternatives (oneOf, anyOf) are shapes of their own and are walked; conjunctions
// (allOf, if/then/else, not) only refine the schema they sit in, which bounds itself.
const SINGLE = ["items", "additionalProperties", "contains", "unevaluatedItems"] as const;
const LISTS = ["oneOf", "anyOf", "prefixItems"] as const;

function escape(segment: string): string {
  return segment.replace(/~/g, "~0").replace(/\//g, "~1");
}

function isSchema(value: unknown): value is JsonSchema {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

function typesOf(schema: JsonSchema): string[] {
  if (Array.isArray(schema.type)) return schema.type.filter((t): t is string => typeof t === "string");
  if (typeof schema.type === "string") return [schema.type];
  if (isSchema(schema.properties)) return ["object"];
  return [];
}

/** The bounds one schema node lacks, itself only (not its subschemas). */
function lacking(schema: JsonSchema): BoundKeyword[] {
  if ("const" in schema || Array.isArray(schema.enum)) return [];
  const types = typesOf(schema);
  const out: BoundKeyword[] = [];
  const has = (k: string) => typeof schema[k] === "number";
  if (
    types.includes("string") &&
    !has("maxLength") &&
    !(typeof schema.format === "string" && LENGTH_BOUNDING_FORMATS.has(schema.format))
  )
    out.push("maxLength");
  if (types.includes("number") || types.includes("integer")) {
    if (!has("minimum") && !has("exclusiveMinimum")) out.push("minimum");
    if (!has("maximum") && !has("exclusiveMaximum")) out.push("maximum");
  }
  if (types.includes("array") && !has("maxItems") && schema.items !== false) out.push("maxItems");
  const closed = schema.additionalProperties === false || schema.unevaluatedProperties === false;
  const open = !closed || isSchema(schema.patternProperties);
  if (types.includes("object") && open && !has("maxProperties")) out.push("maxProperties");
  return out;
}

/** Calls `visit` on every schema node a value may have to match, with its pointer, parents first. */
export function walkSchema(schema: unknown, pointer: string, visit: (node: JsonSchema, pointer: string) => void): void {
  if (!isSchema(schema)) return;
  visit(schema, pointer);
  for (const key of MAPS) {
    const map = schema[key];
    if (isSchema(map))
      for (const [name, sub] of Object.entries(map)) walkSchema(sub, `${pointer}/${key}/${escape(name)}`, visit);
  }
  for (const key of SINGLE) walkSchema(schema[key], `${pointer}/${key}`, visit);
  for (const key of LISTS) {
    const list = schema[key];
    if (Array.isArray(list)) list.forEach((sub, i) => walkSchema(sub, `${pointer}/${key}/${i}`, visit));
  }
}

/**
 * In pointer order, so the list is the same whatever order the schema's keys
 * were stored in (PostgreSQL's jsonb keeps its own).
 */
export function byPointer<T extends { pointer: string }>(list: T[]): T[] {
  return list.sort((a, b) => (a.pointer < b.pointer ? -1 : a.pointer > b.pointer ? 1 : 0));
}

/** Every bound the schema's fields lack, with the pointer of the field in the schema. */
export function missingBounds(schema: JsonSchema): MissingBound[] {
  const out: MissingBound[] = [];
  walkSchema(schema, "", (node, pointer) => {
    for (const keyword of lacking(node)) out.push({ pointer, keyword });
  });
  return byPointer(out);
}

function copy(schema: unknown): unknown {
  return JSON.parse(JSON.stringify(schema)) as unknown;
}

/**
 * A copy of an MCP tool's input schema where every missing bound is Guichet's
 * default, and the list of what was added. A schema that already bounds every
 * field comes back equal, with an empty list.
 */
export function withGuichetBounds(schema: JsonSchema): { schema: JsonSchema; added: AddedBound[] } {
  const out = copy(schema) as JsonSchema;
  const added: AddedBound[] = [];
  walkSchema(out, "", (node, pointer) => {
    for (const keyword of lacking(node)) {
      const value = GUICHET_BOUNDS[keyword];
      node[keyword] = value;
      added.push({ pointer, keyword, value });
    }
  });
  return { schema: out, added: byPointer(added) };
}
