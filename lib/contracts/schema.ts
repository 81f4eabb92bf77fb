import Ajv2020, { type ErrorObject, type ValidateFunction } from "ajv/dist/2020";
import addFormats from "ajv-formats";
import type { JsonSchema } from "./types";

// JSON Schema 2020-12, compiled once per schema object. Our own contracts are
// compiled in strict mode (a typo in a keyword is a bug); MCP schemas come from
// someone else's server and may carry vendor keywords, so they are compiled
// leniently — but closed by `closeObjects` when their contract is published.

const strictAjv = new Ajv2020({ strict: true, allErrors: true, allowUnionTypes: true });
const lenientAjv = new Ajv2020({ strict: false, allErrors: true, allowUnionTypes: true, validateSchema: false });
addFormats(strictAjv);
addFormats(lenientAjv);

const compiled = new WeakMap<JsonSchema, ValidateFunction>();

export function compileSchema(schema: JsonSchema, mode: "strict" | "lenient" = "strict"): ValidateFunction {
  let fn = compiled.get(schema);
  if (!fn) {
    fn = (mode === "strict" ? strictAjv : lenientAjv).compile(schema);
    compiled.set(schema, fn);
  }
  return fn;
}

export interface SchemaViolation {
  /** JSON pointer of the offending value ("" for the whole document). */
  field: string;
  message: string;
  /** Where in the schema the rule sits: names only what the contract says, never what the value holds. */
  schemaPath: string;
}

/** null when `value` matches, else the one violation worth reporting. */
export function checkAgainst(
  schema: JsonSchema,
  value: unknown,
  mode: "strict" | "lenient" = "strict",
): SchemaViolation | null {
  const validate = compileSchema(schema, mode);
  return validate(value) ? null : describeViolation(validate.errors ?? []);
}

/** Throws when a schema does not compile (used when publishing a contract). */
export function assertCompiles(schema: JsonSchema, mode: "strict" | "lenient"): void {
  (mode === "strict" ? strictAjv : lenientAjv).compile(schema);
}

const BRANCH_CONST = /^(.*\/(?:oneOf|anyOf)\/\d+)\/properties\/[^/]+\/const$/;

/**
 * One useful error out of ajv's list. In a discriminated union, the branches
 * whose discriminant does not match are ignored, so the pointer names the wrong
 * field inside the chosen branch; an unknown discriminant points at itself.
 */
export function describeViolation(errors: ErrorObject[]): SchemaViolation {
  const wrongBranches: string[] = [];
  const discriminantErrors: ErrorObject[] = [];
  for (const error of errors) {
    const match = error.keyword === "const" ? BRANCH_CONST.exec(error.schemaPath) : null;
    if (match) {
      wrongBranches.push(`${match[1]}/`);
      discriminantErrors.push(error);
    }
  }
  const relevant = errors.filter(
    (e) =>
      e.keyword !== "oneOf" &&
      e.keyword !== "anyOf" &&
      e.keyword !== "if" &&
      !wrongBranches.some((p) => e.schemaPath.startsWith(p)),
  );
  if (relevant.length === 0 && discriminantErrors.length > 0) {
    const allowed = discriminantErrors.map((e) => JSON.stringify((e.params as { allowedValue: unknown }).allowedValue));
    return {
      field: discriminantErrors[0].instancePath,
      message: `must be one of ${allowed.join(", ")}`,
      schemaPath: discriminantErrors[0].schemaPath,
    };
  }
  const error = relevant[0] ?? errors[0];
  if (!error) return { field: "", message: "is invalid", schemaPath: "#" };
  if (error.keyword === "required") {
    return {
      field: `${error.instancePath}/${escapePointer((error.params as { missingProperty: string }).missingProperty)}`,
      message: "is required",
      schemaPath: error.schemaPath,
    };
  }
  if (error.keyword === "additionalProperties" || error.keyword === "unevaluatedProperties") {
    const params = error.params as { additionalProperty?: string; unevaluatedProperty?: string };
    return {
      field: `${error.instancePath}/${escapePointer(params.additionalProperty ?? params.unevaluatedProperty ?? "")}`,
      message: "is not an allowed field",
      schemaPath: error.schemaPath,
    };
  }
  if (error.keyword === "oneOf" || error.keyword === "anyOf")
    return { field: error.instancePath, message: "matches none of the allowed shapes", schemaPath: error.schemaPath };
  return { field: error.instancePath, message: error.message ?? "is invalid", schemaPath: error.schemaPath };
}

export function escapePointer(segment: string): string {
  return segment.replace(/~/g, "~0").replace(/\//g, "~1");
}

const COMBINERS = ["allOf", "anyOf", "oneOf", "not", "if", "then", "else"] as const;
const SUBSCHEMA_MAPS = ["properties", "$defs", "definitions", "patternProperties", "dependentSchemas"] as const;
const SUBSCHEMAS = [
  "items",
  "additionalItems",
  "contains",
  "propertyNames",
  "additionalProperties",
  "unevaluatedItems",
] as const;

/**
 * A copy of `schema` where every object that lists `properties` and says
 * nothing about other properties is closed (`additionalProperties: false`), so
 * an invented field is refused instead of silently forwarded. Objects under
 * `allOf` stay open: closing them would make the conjunction unsatisfiable.
 */
export function closeObjects(schema: unknown, underAllOf = false): unknown {
  if (Array.isArray(schema)) return schema.map((item) => closeObjects(item, underAllOf));
  if (typeof schema !== "object" || schema === null) return schema;
  const source = schema as Record<string, unknown>;
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(source)) {
    if (
      (SUBSCHEMA_MAPS as readonly string[]).includes(key) &&
      value &&
      typeof value === "object" &&
      !Array.isArray(value)
    ) {
      out[key] = Object.fromEntries(Object.entries(value).map(([name, sub]) => [name, closeObjects(sub)]));
    } else if ((COMBINERS as readonly string[]).includes(key)) {
      out[key] = closeObjects(value, key === "allOf");
    } else if ((SUBSCHEMAS as readonly string[]).includes(key) || key === "prefixItems") {
      out[key] = closeObjects(value);
    } else {
      out[key] = value;
    }
  }
  const open =
    !("additionalProperties" in source) && !("unevaluatedProperties" in source) && !("patternProperties" in source);
  if (open && !underAllOf && source.properties && typeof source.properties === "object" && !source.allOf) {
    out.additionalProperties = false;
  }
  return out;
}
