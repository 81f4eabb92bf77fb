import { z } from "zod";

// Telemetry's zod schemas and types: safe for the browser (no server import).

export const TelemetryQuery = z.strictObject({ hours: z.coerce.number().int().min(1).max(720).default(24) });

const dims = { tool: z.string(), version: z.number().int() };

export const TelemetryObject = z.object({
  from: z.string(),
  to: z.string(),
  totals: z.object({
    calls: z.number(),
    errors: z.number(),
    retries: z.number(),
    output_errors: z.number(),
    validation_errors: z.number(),
    conflicts: z.number(),
    unknown_outcomes: z.number(),
  }),
  calls: z.array(z.object({ ...dims, calls: z.number(), errors: z.number() })),
  errors_by_code: z.array(z.object({ code: z.string(), count: z.number() })),
  validation_errors: z.array(z.object({ ...dims, code: z.string(), field: z.string(), count: z.number() })),
  retries: z.array(z.object({ ...dims, retry_class: z.string(), count: z.number() })),
  output_errors: z.array(z.object({ ...dims, count: z.number() })),
  approval_decisions: z.array(z.object({ decision: z.string(), count: z.number() })),
  /** Writes the shadow policy table would have decided otherwise, by tool and kind of difference. */
  shadow_differences: z.array(z.object({ tool: z.string(), kind: z.string(), count: z.number() })),
  series: z.array(z.object({ bucket: z.string(), calls: z.number(), errors: z.number() })),
});

export type TelemetryObject = z.infer<typeof TelemetryObject>;
