import { createHash } from "node:crypto";
import { canonicalJson, plainJson } from "@/lib/canonical";

// What a reviewer approves: the tool's description and schemas. Annotations are
// hints, not part of the contract, so changing them does not call for a review.

export interface ReviewedShape {
  description: string;
  input_schema: unknown;
  output_schema: unknown;
}

/** SHA-256 of the RFC 8785 canonical JSON of the reviewed shape: key order never matters. */
export function toolFingerprint(shape: ReviewedShape): string {
  const canonical = canonicalJson(
    plainJson({
      description: shape.description,
      input_schema: shape.input_schema,
      output_schema: shape.output_schema ?? null,
    }),
  );
  return createHash("sha256").update(canonical).digest("hex");
}

export interface ShapeChange {
  field: "description" | "input_schema" | "output_schema";
  before: unknown;
  after: unknown;
}

/** What changed since the last review, field by field (whole values: the console renders the diff). */
export function shapeChanges(before: ReviewedShape | null, after: ReviewedShape): ShapeChange[] {
  const fields = ["description", "input_schema", "output_schema"] as const;
  return fields
    .filter(
      (field) => canonicalJson(plainJson(before?.[field] ?? null)) !== canonicalJson(plainJson(after[field] ?? null)),
    )
    .map((field) => ({ field, before: before ? (before[field] ?? null) : null, after: after[field] ?? null }));
}

/**
 * The review form's pre-filled "writes data" answer. MCP annotations are
 * untrusted hints: only an explicit `readOnlyHint: true` suggests a read; a
 * missing or false hint suggests a write, the safe side.
 */
export function suggestedWritesData(annotations: Record<string, unknown> | null | undefined): boolean {
  return annotations?.readOnlyHint !== true;
}
