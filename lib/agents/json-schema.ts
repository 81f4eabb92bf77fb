import Ajv2020 from "ajv/dist/2020";

// User-supplied JSON Schemas (output_schema, client tool parameters) must compile
// as JSON Schema 2020-12. Unknown keywords are tolerated (strict: false): models
// and client libraries add their own annotations.
const options = { strict: false, allErrors: false, validateFormats: false } as const;
const shared = new Ajv2020(options);

/** How deeply a saved schema may nest objects and arrays: far beyond any real output shape, far below a stack overflow. */
export const MAX_SCHEMA_DEPTH = 32;

function depthExceeds(value: unknown, limit: number): boolean {
  if (value === null || typeof value !== "object") return false;
  if (limit === 0) return true;
  return Object.values(value).some((item) => depthExceeds(item, limit - 1));
}

// Keywords that apply another schema to the same instance: a loop through them
// (and $ref) never consumes input, so a validator or a compiler following it never ends.
const IN_PLACE_ONE = ["not", "if", "then", "else"] as const;
const IN_PLACE_MANY = ["allOf", "anyOf", "oneOf"] as const;

function resolveLocalRef(root: unknown, ref: string): unknown {
  if (ref === "#") return root;
  if (!ref.startsWith("#/")) return undefined;
  let node: unknown = root;
  for (const raw of ref.slice(2).split("/")) {
    if (node === null || typeof node !== "object") return undefined;
    let token: string;
    try {
      token = decodeURIComponent(raw).replaceAll("~1", "/").replaceAll("~0", "~");
    } catch {
      return undefined; // a malformed escape: the compiler reports the reference
    }
    node = (node as Record<string, unknown>)[token];
  }
  return node;
}

function inPlaceChildren(root: unknown, node: Record<string, unknown>): unknown[] {
  const children: unknown[] = [];
  if (typeof node.$ref === "string") children.push(resolveLocalRef(root, node.$ref));
  for (const keyword of IN_PLACE_ONE) children.push(node[keyword]);
  for (const keyword of IN_PLACE_MANY) if (Array.isArray(node[keyword])) children.push(...(node[keyword] as unknown[]));
  return children.filter(
    (child): child is Record<string, unknown> => child !== null && typeof child === "object" && !Array.isArray(child),
  );
}

/** True when some subschema reaches itself again through $ref and in-place keywords only (`{"$ref": "#"}`, a → b → a). */
export function hasRefCycle(root: unknown): boolean {
  const state = new Map<object, "open" | "done">();
  const visit = (node: Record<string, unknown>): boolean => {
    const seen = state.get(node);
    if (seen === "open") return true;
    if (seen === "done") return false;
    state.set(node, "open");
    const cyclic = inPlaceChildren(root, node).some((child) => visit(child as Record<string, unknown>));
    state.set(node, "done");
    return cyclic;
  };
  const all: Record<string, unknown>[] = [];
  const collect = (value: unknown) => {
    if (value === null || typeof value !== "object") return;
    if (!Array.isArray(value)) all.push(value as Record<string, unknown>);
    Object.values(value).forEach(collect);
  };
  collect(root);
  return all.some(visit);
}

/** Why a schema does not compile, or null when it does. */
export function jsonSchemaProblem(schema: Record<string, unknown>): string | null {
  if (depthExceeds(schema, MAX_SCHEMA_DEPTH))
    return `The schema nests objects and arrays deeper than ${MAX_SCHEMA_DEPTH} levels.`;
  if (hasRefCycle(schema))
    return "The schema refers to itself in a loop ($ref, allOf, anyOf, oneOf, not, if/then/else) without describing any value.";
  // A schema with $id registers itself by id: compile it on a throwaway instance so
  // a second schema with the same id, or a failed compile, leaves nothing behind.
  const withIds = JSON.stringify(schema).includes('"$id"');
  const ajv = withIds ? new Ajv2020(options) : shared;
  const copy = structuredClone(schema);
  try {
    ajv.compile(copy);
    return null;
  } catch (error) {
    // A stack overflow says nothing useful about the schema and nothing we should show.
    if (error instanceof RangeError) return "The schema is too complex to compile (too deep or recursive).";
    const message = error instanceof Error ? error.message : String(error);
    return `Not a valid JSON Schema (2020-12): ${message.replace(/^schema is invalid: /, "").slice(0, 300)}`;
  } finally {
    if (!withIds) shared.removeSchema(copy);
  }
}
