import { z } from "zod";

// The query of every cursor-paginated list. Its own module so that schemas the
// browser imports can extend it without pulling in the server-side parsing helpers.
export const ListQuery = z.strictObject({
  limit: z.coerce.number().int().min(1).max(100).default(20),
  cursor: z.string().min(1).max(200).optional(),
});
export type ListQuery = z.infer<typeof ListQuery>;
