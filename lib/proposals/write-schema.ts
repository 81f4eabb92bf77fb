import type { Contract, JsonSchema } from "@/lib/contracts/types";
import { topLevelField } from "./draft";

// What an agent may send to a write tool. A tool with a preview
// commits only `{proposal_id}`: its arguments come from the stored proposal.
// A tool without one takes either `{proposal_id}` or candidate arguments, from
// which Guichet makes the proposal — never the idempotency key, which Guichet
// generates, nor a target version the preview would resolve.

export const PROPOSAL_ID_PATTERN = "^prop_[0-9a-z]{26}$";

export const proposalRefSchema: JsonSchema = {
  type: "object",
  properties: { proposal_id: { type: "string", pattern: PROPOSAL_ID_PATTERN } },
  required: ["proposal_id"],
  additionalProperties: false,
};

function withoutFields(schema: JsonSchema, fields: string[]): JsonSchema {
  const properties = { ...((schema.properties as Record<string, unknown> | undefined) ?? {}) };
  for (const field of fields) delete properties[field];
  const required = Array.isArray(schema.required)
    ? schema.required.filter((name) => !fields.includes(name as string))
    : undefined;
  return { ...schema, properties, ...(required ? { required } : {}) };
}

export function writeCallSchema(
  contract: Pick<Contract, "input_schema" | "preview" | "idempotency" | "target">,
): JsonSchema {
  if (contract.preview) return proposalRefSchema;
  const engineFields = [contract.idempotency?.key_field].filter((f): f is string => Boolean(f));
  const candidate = withoutFields(contract.input_schema, engineFields);
  // `if` picks the branch, so a validation error points into the branch the caller meant.
  return {
    type: "object",
    if: { properties: { proposal_id: true }, required: ["proposal_id"] },
    then: proposalRefSchema,
    else: candidate,
  };
}

export function isProposalRef(args: unknown): args is { proposal_id: string } {
  return (
    typeof args === "object" &&
    args !== null &&
    !Array.isArray(args) &&
    typeof (args as { proposal_id?: unknown }).proposal_id === "string"
  );
}

/** The commit arguments a preview's proposal will send, for checking them against the service's schema up front. */
export function versionFieldOf(contract: Pick<Contract, "target">): string | null {
  return topLevelField(contract.target?.version_pointer);
}
