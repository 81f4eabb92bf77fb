import Ajv2020 from "ajv/dist/2020";

// User-supplied JSON Schemas (output_schema, client tool parameters) must compile
// as JSON Schema 2020-12. Unknown keywords are tolerated (strict: false): models
// and client libraries add their own annotations.
const options = { strict: false, allErrors: false, validateFormats: false } as const;
const shared = new Ajv2020(options);

/** Why a schema does not compile, or null when it does. */
export function jsonSchemaProblem(schema: Record<string, unknown>): string | null {
  // A schema with $id registers itself by id: compile it on a throwaway instance so
  // a second schema with the same id, or a failed compile, leaves nothing behind.
  const withIds = JSON.stringify(schema).includes('"$id"');
  const ajv = withIds ? new Ajv2020(options) : shared;
  const copy = structuredClone(schema);
  try {
    ajv.compile(copy);
    return null;
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    return `Not a valid JSON Schema (2020-12): ${message.replace(/^schema is invalid: /, "").slice(0, 300)}`;
  } finally {
    if (!withIds) shared.removeSchema(copy);
  }
}
