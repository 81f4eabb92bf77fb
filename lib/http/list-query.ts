import { z } from "zod";
import { commaList } from "@/lib/comma-list";

// The query of every cursor-paginated list. Its own module so that schemas the
// browser imports can extend it without pulling in the server-side parsing helpers.
export const ListQuery = z.strictObject({
  limit: z.coerce.number().int().min(1).max(100).default(20),
  cursor: z.string().min(1).max(200).optional(),
});
export type ListQuery = z.infer<typeof ListQuery>;

/**
 * A `status` filter: one status or several, comma-separated. The document
 * lists the values (a pattern and the description) so a generated client
 * knows them; the parsed value is the array of statuses.
 */
export function statusFilter<const Values extends readonly [string, ...string[]]>(values: Values) {
  const one = `(?:${values.join("|")})`;
  return z
    .string()
    .meta({
      description: `One or more of ${values.map((value) => `\`${value}\``).join(", ")}, comma-separated.`,
      // What the parser below accepts: blanks around items and empty items are dropped, one status at least.
      pattern: `^(?=.*${one})(?:\\s*${one}?\\s*,)*\\s*${one}?\\s*$`,
      example: values.slice(0, 2).join(","),
    })
    .transform(commaList)
    .pipe(z.array(z.enum(values)).min(1).max(values.length));
}
