import { z } from "zod";

// Models' zod schemas and types: safe for the browser (no server import).

export const ModelObject = z.object({
  id: z.string(),
  name: z.string(),
  provider: z.string(),
  structured_output: z.boolean(),
  default: z.boolean(),
});
export type ModelObject = z.infer<typeof ModelObject>;
