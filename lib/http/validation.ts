import { z } from "zod";
import { ApiError, type FieldError } from "./errors";

function fieldPath(path: readonly PropertyKey[]): string {
  return path
    .map((part) => (typeof part === "number" ? `[${part}]` : String(part)))
    .join(".")
    .replace(/\.\[/g, "[");
}

/**
 * Strict input parsing: an unknown key anywhere is `unknown_parameter` naming the
 * field; any other problem is `invalid_parameter` with one entry per field.
 */
export function parseInput<S extends z.ZodType>(schema: S, input: unknown): z.infer<S> {
  const result = schema.safeParse(input);
  if (result.success) return result.data;
  const unknown = result.error.issues.find((issue) => issue.code === "unrecognized_keys");
  if (unknown && unknown.code === "unrecognized_keys") {
    const field = fieldPath([...unknown.path, unknown.keys[0]]);
    throw new ApiError("unknown_parameter", `Unknown parameter: ${field}.`, {
      errors: unknown.keys.map((key) => ({
        field: fieldPath([...unknown.path, key]),
        code: "unknown_parameter",
        message: `Unknown parameter: ${key}.`,
      })),
    });
  }
  const seen = new Set<string>();
  const errors: FieldError[] = [];
  for (const issue of result.error.issues) {
    const field = fieldPath(issue.path) || "body";
    if (seen.has(field)) continue;
    seen.add(field);
    errors.push({ field, code: issue.code, message: issue.message });
  }
  throw new ApiError(
    "invalid_parameter",
    errors.length === 1 ? `Invalid value for ${errors[0].field}: ${errors[0].message}` : "Some parameters are invalid.",
    { errors },
  );
}

/** `?limit=&cursor=` for every list. */
export { ListQuery } from "./list-query";

/** Keyset pagination on (createdAt desc, id desc) encoded as an opaque cursor. */
export function encodeCursor(row: { id: string | number; createdAt: Date }): string {
  return Buffer.from(JSON.stringify([row.createdAt.toISOString(), row.id])).toString("base64url");
}

export function decodeCursor(cursor: string): { createdAt: Date; id: string } {
  try {
    const [at, id] = JSON.parse(Buffer.from(cursor, "base64url").toString("utf8")) as [string, string];
    const createdAt = new Date(at);
    if (Number.isNaN(createdAt.getTime()) || typeof id !== "string") throw new Error("bad cursor");
    return { createdAt, id };
  } catch {
    throw new ApiError("invalid_parameter", "Invalid cursor.", {
      errors: [{ field: "cursor", code: "invalid_value", message: "Invalid cursor." }],
    });
  }
}

/** The Prisma `where` fragment for rows after a cursor, in (createdAt desc, id desc) order. */
export function afterCursor(cursor: string | undefined) {
  if (!cursor) return {};
  const { createdAt, id } = decodeCursor(cursor);
  return { OR: [{ createdAt: { lt: createdAt } }, { createdAt, id: { lt: id } }] };
}

/** Takes limit+1 rows and turns them into `{data, next_cursor}`. */
export function page<Row extends { id: string | number; createdAt: Date }, Out>(
  rows: Row[],
  limit: number,
  serialize: (row: Row) => Out,
) {
  const more = rows.length > limit;
  const kept = more ? rows.slice(0, limit) : rows;
  return { data: kept.map(serialize), next_cursor: more ? encodeCursor(kept[kept.length - 1]) : null };
}
