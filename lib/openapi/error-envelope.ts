import { z } from "zod";

/** The one error body every /v1 refusal uses (lib/http/errors.ts builds it). */
export const ErrorEnvelope = z.object({
  error: z.object({
    code: z.string().meta({ description: "Stable machine-readable code; the operation's responses list the codes it can return." }),
    message: z.string().meta({ description: "For humans; may change." }),
    errors: z
      .array(z.object({ field: z.string(), code: z.string(), message: z.string() }))
      .optional()
      .meta({ description: "One entry per invalid field (invalid_parameter, unknown_parameter)." }),
    reason: z.record(z.string(), z.unknown()).optional().meta({ description: "Details specific to the code." }),
    request_id: z.string().meta({ description: "Also sent as the X-Request-Id header; quote it to support." }),
  }),
});
