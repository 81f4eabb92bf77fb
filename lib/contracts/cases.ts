import type { JsonSchema } from "./types";

// Contract test cases generated from an input schema, methodically:
// for each field, missing / empty / too long / wrong primitive; for a civil
// date an impossible day and a real one; for numbers
// the exact bounds and the nearest values outside; for arrays the item counts
// around their bounds and duplicates; for enums and constants a value outside;
// for discriminated unions the branches mixed, an unknown discriminant and the
// fields of the branch the example takes; and
// an invented field at every object level. Each case starts from a valid
// example and changes one thing.

export interface ContractCase {
  name: string;
  arguments: unknown;
  /** refused: the schema must refuse it at `field`; accepted: the schema must let it through. */
  expect: "refused" | "accepted";
  field: string;
}

type Json = unknown;

function clone<T>(value: T): T {
  return JSON.parse(JSON.stringify(value)) as T;
}

function escape(segment: string): string {
  return segment.replace(/~/g, "~0").replace(/\//g, "~1");
}

function setAt(root: Json, path: string[], value: Json | undefined): Json {
  const copy = clone(root) as Record<string, Json>;
  let node = copy as Record<string, Json>;
  for (const segment of path.slice(0, -1)) node = node[segment] as Record<string, Json>;
  const last = path[path.length - 1];
  if (value === undefined) delete node[last];
  else node[last] = value;
  return copy;
}

function typesOf(schema: JsonSchema): string[] {
  if (Array.isArray(schema.type)) return schema.type as string[];
  if (typeof schema.type === "string") return [schema.type];
  if ("const" in schema) return [typeof schema.const === "number" ? "number" : typeof schema.const];
  if (Array.isArray(schema.enum))
    return [...new Set((schema.enum as unknown[]).map((v) => (typeof v === "number" ? "number" : typeof v)))];
  return [];
}

/** A value of another primitive type than every type the schema allows. */
function wrongPrimitive(schema: JsonSchema): Json | undefined {
  const allowed = typesOf(schema);
  if (allowed.length === 0) return undefined;
  const candidates: [string, Json][] = [
    ["string", 12345],
    ["number", "12"],
    ["integer", "12"],
    ["boolean", "true"],
    ["array", { not: "an array" }],
    ["object", "not an object"],
    ["null", 0],
  ];
  const fits = (value: Json) =>
    allowed.some((t) =>
      t === "integer"
        ? Number.isInteger(value)
        : t === "null"
          ? value === null
          : t === "array"
            ? Array.isArray(value)
            : typeof value === t && !Array.isArray(value) && value !== null,
    );
  for (const [, value] of candidates) if (!fits(value)) return value;
  return undefined;
}

/** The nearest number past `bound` by `step` that a JavaScript number tells apart from it (large bounds need a larger step). */
function beyond(bound: number, step: number): number {
  let delta = step;
  while (bound + delta === bound) delta *= 2;
  return bound + delta;
}

function unconstrainedString(schema: JsonSchema): boolean {
  return !("pattern" in schema) && !("format" in schema) && !("enum" in schema) && !("const" in schema);
}

function fieldCases(
  schema: JsonSchema,
  example: Json,
  path: string[],
  required: boolean,
  out: ContractCase[],
  root: Json,
): void {
  const pointer = path.length ? `/${path.map(escape).join("/")}` : "";
  const put = (name: string, value: Json | undefined, expect: ContractCase["expect"], field = pointer) =>
    out.push({ name: `${pointer || "/"} ${name}`, arguments: setAt(root, path, value), expect, field });
  if (required) put("missing", undefined, "refused", pointer);
  const wrong = wrongPrimitive(schema);
  if (wrong !== undefined) put("wrong primitive", wrong, "refused");
  const types = typesOf(schema);
  if (types.includes("string")) {
    const min = typeof schema.minLength === "number" ? schema.minLength : 0;
    if (min >= 1) put("empty", "", "refused");
    if (typeof schema.maxLength === "number") {
      put("one character too long", "x".repeat(schema.maxLength + 1), "refused");
      if (unconstrainedString(schema)) put("at its maximum length", "x".repeat(schema.maxLength), "accepted");
    }
    if (Array.isArray(schema.enum)) put("outside the enum", "not-in-enum", "refused");
    if (typeof schema.const === "string") put("other than the constant", `${schema.const}-other`, "refused");
    if (schema.format === "date") {
      // A civil date is a real day of the calendar, not only the YYYY-MM-DD shape.
      put("an impossible calendar date", "2026-02-30", "refused");
      put("a real calendar date", "2028-02-29", "accepted");
    }
  }
  if (types.includes("number") || types.includes("integer")) {
    const step = types.includes("integer") ? 1 : 0.001;
    if (typeof schema.minimum === "number") {
      put("at its minimum", schema.minimum, "accepted");
      put("just below its minimum", beyond(schema.minimum, -step), "refused");
    }
    if (typeof schema.maximum === "number") {
      put("at its maximum", schema.maximum, "accepted");
      put("just above its maximum", beyond(schema.maximum, step), "refused");
    }
    if (types.includes("integer") && !types.includes("number"))
      put("not an integer", (typeof example === "number" ? example : 1) + 0.5, "refused");
  }
  if (types.includes("array") && Array.isArray(example) && example.length > 0) {
    const item = example[0];
    if (typeof schema.minItems === "number" && schema.minItems > 0)
      put(
        "with one item too few",
        Array.from({ length: schema.minItems - 1 }, () => clone(item)),
        "refused",
      );
    if (typeof schema.maxItems === "number" && schema.maxItems <= 600 && !schema.uniqueItems)
      put(
        "with one item too many",
        Array.from({ length: schema.maxItems + 1 }, () => clone(item)),
        "refused",
      );
    if (schema.uniqueItems) put("with a duplicate item", [clone(item), clone(item)], "refused", pointer);
    const items = schema.items as JsonSchema | undefined;
    if (items && typeof items === "object") fieldCases(items, item, [...path, "0"], false, out, root);
  }
  if (types.includes("object") || schema.properties) objectCases(schema, example, path, out, root);
  unionCases(schema, example, path, out, root);
}

function objectCases(schema: JsonSchema, example: Json, path: string[], out: ContractCase[], root: Json): void {
  if (!example || typeof example !== "object" || Array.isArray(example)) return;
  const properties = (schema.properties ?? {}) as Record<string, JsonSchema>;
  const required = new Set(Array.isArray(schema.required) ? (schema.required as string[]) : []);
  const pointer = path.length ? `/${path.map(escape).join("/")}` : "";
  if (schema.additionalProperties === false) {
    out.push({
      name: `${pointer || "/"} with an invented field`,
      arguments: setAt(root, [...path, "invented_field"], "x"),
      expect: "refused",
      field: `${pointer}/invented_field`,
    });
  }
  for (const [name, sub] of Object.entries(properties)) {
    const value = (example as Record<string, Json>)[name];
    if (value === undefined) {
      if (!required.has(name)) continue;
    }
    if (value === undefined) continue;
    fieldCases(sub, value, [...path, name], required.has(name), out, root);
  }
}

/** The discriminant of a oneOf of closed objects: a property that is a const in every branch. */
function discriminant(branches: JsonSchema[]): string | null {
  const first = (branches[0]?.properties ?? {}) as Record<string, JsonSchema>;
  return (
    Object.keys(first).find((name) =>
      branches.every((b) => ((b.properties ?? {}) as Record<string, JsonSchema>)[name]?.const !== undefined),
    ) ?? null
  );
}

function unionCases(schema: JsonSchema, example: Json, path: string[], out: ContractCase[], root: Json): void {
  const branches = (schema.oneOf ?? schema.anyOf) as JsonSchema[] | undefined;
  if (!Array.isArray(branches) || !example || typeof example !== "object") return;
  const tag = discriminant(branches);
  if (!tag) return;
  const pointer = `/${path.map(escape).join("/")}`;
  const current = (example as Record<string, Json>)[tag];
  const chosen = branches.find((b) => (b.properties as Record<string, JsonSchema>)[tag].const === current);
  // The fields of the branch the example takes, like any object's (each branch is reached by an example of it).
  if (chosen) objectCases(chosen, example, path, out, root);
  out.push({
    name: `${pointer} with an unknown ${tag}`,
    arguments: setAt(root, [...path, tag], "unknown-variant"),
    expect: "refused",
    field: `${pointer}/${escape(tag)}`,
  });
  for (const other of branches) {
    if (other === chosen) continue;
    // A field of another branch, added to the chosen one: both branches mixed.
    const foreign = Object.keys((other.properties ?? {}) as object).find(
      (name) => name !== tag && !(chosen?.properties && name in (chosen.properties as object)),
    );
    if (foreign)
      out.push({
        name: `${pointer} mixing in ${foreign} from the ${String((other.properties as Record<string, JsonSchema>)[tag].const)} branch`,
        arguments: setAt(root, [...path, foreign], "x"),
        expect: "refused",
        field: `${pointer}/${escape(foreign)}`,
      });
  }
}

/** Every case for an input schema, from one valid example of it. */
export function contractCases(schema: JsonSchema, validExample: Json): ContractCase[] {
  const out: ContractCase[] = [];
  objectCases(schema, validExample, [], out, validExample);
  return out;
}
