import Ajv2020, { type ErrorObject, type ValidateFunction } from "ajv/dist/2020";
import addFormats from "ajv-formats";
import { ToolError } from "./errors";
import type { JsonSchema } from "./schemas";

// Server-side validation: the service is the authority and refuses bad input
// even when a client skipped validation. Strict JSON Schema 2020-12.

const ajv = new Ajv2020({ strict: true, allErrors: true, allowUnionTypes: true });
addFormats(ajv);

const cache = new WeakMap<JsonSchema, ValidateFunction>();

export function compile(schema: JsonSchema): ValidateFunction {
  let fn = cache.get(schema);
  if (!fn) {
    fn = ajv.compile(schema);
    cache.set(schema, fn);
  }
  return fn;
}

/** Validates tool arguments; throws INVALID_ARGUMENTS with a JSON pointer to the offending field. */
export function assertValid(schema: JsonSchema, value: unknown): void {
  const fn = compile(schema);
  if (fn(value)) return;
  const { field, message } = describeErrors(fn.errors ?? []);
  throw new ToolError("INVALID_ARGUMENTS", `Arguments invalides en ${field || "/"} : ${message}`, { field });
}

/** Returns null when valid, else a short description (used to check our own outputs). */
export function outputProblem(schema: JsonSchema, value: unknown): string | null {
  const fn = compile(schema);
  if (fn(value)) return null;
  const { field, message } = describeErrors(fn.errors ?? []);
  return `${field || "/"}: ${message}`;
}

const DISCRIMINANT_CONST = /^(.*\/oneOf\/\d+)\/properties\/kind\/const$/;

/**
 * Turns ajv's error list into one error with a useful pointer. For the
 * discriminated unions (`oneOf` of objects with a `kind` const), the branches
 * whose `kind` does not match are ignored, so the error points at the field
 * that is wrong inside the chosen branch; an unknown `kind` points at `kind`.
 */
export function describeErrors(errors: ErrorObject[]): { field: string; message: string } {
  const wrongBranches: string[] = [];
  const discriminantErrors: ErrorObject[] = [];
  for (const e of errors) {
    const m = e.keyword === "const" ? DISCRIMINANT_CONST.exec(e.schemaPath) : null;
    if (m) {
      wrongBranches.push(`${m[1]}/`);
      discriminantErrors.push(e);
    }
  }
  const relevant = errors.filter(
    (e) => e.keyword !== "oneOf" && !wrongBranches.some((prefix) => e.schemaPath.startsWith(prefix)),
  );
  if (relevant.length === 0 && discriminantErrors.length > 0) {
    const allowed = discriminantErrors.map((e) => JSON.stringify((e.params as { allowedValue: unknown }).allowedValue));
    return {
      field: discriminantErrors[0].instancePath,
      message: `doit valoir l’une des valeurs ${allowed.join(", ")}`,
    };
  }
  const e = relevant[0] ?? errors[0];
  if (!e) return { field: "", message: "arguments invalides" };
  if (e.keyword === "required") {
    const prop = (e.params as { missingProperty: string }).missingProperty;
    return { field: `${e.instancePath}/${escapePointer(prop)}`, message: "est obligatoire" };
  }
  if (e.keyword === "additionalProperties") {
    const prop = (e.params as { additionalProperty: string }).additionalProperty;
    return { field: `${e.instancePath}/${escapePointer(prop)}`, message: "n’est pas une propriété autorisée" };
  }
  return { field: e.instancePath, message: e.message ?? "is invalid" };
}

function escapePointer(segment: string): string {
  return segment.replace(/~/g, "~0").replace(/\//g, "~1");
}

/** A real day of the calendar written YYYY-MM-DD: 2026-02-30 and 2027-02-29 are not. */
export function isCivilDate(value: string): boolean {
  const match = /^(\d{4})-(\d{2})-(\d{2})$/.exec(value);
  if (!match) return false;
  const [year, month, day] = match.slice(1).map(Number);
  const date = new Date(Date.UTC(year, month - 1, day));
  return date.getUTCFullYear() === year && date.getUTCMonth() === month - 1 && date.getUTCDate() === day;
}

/**
 * The service's own check of a civil date, whatever the client validated: a
 * real calendar day, strictly after `today` (YYYY-MM-DD). A day is compared as
 * a day: no time of day and no time zone enter it.
 */
export function assertCivilDateAfter(value: string, today: string, field: string): void {
  if (!isCivilDate(value))
    throw new ToolError(
      "INVALID_ARGUMENTS",
      `Arguments invalides en ${field} : ${value} n’est pas une date du calendrier`,
      {
        field,
      },
    );
  if (value <= today)
    throw new ToolError(
      "INVALID_ARGUMENTS",
      `Arguments invalides en ${field} : la date doit être postérieure au ${today}`,
      {
        field,
      },
    );
}
