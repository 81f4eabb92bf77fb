import { z } from "zod";
import type { Prisma } from "@/lib/db";
import { isoOffset } from "@/lib/time";

// A step as the API shows it. Pure (no database client), like every endpoint declaration's dependencies.

export const StepObject = z.object({
  id: z.string(),
  run: z.string(),
  tool: z.string(),
  version: z.number().int().nullable(),
  status: z.enum(["ok", "error"]),
  duration_ms: z.number().int(),
  error_code: z.string().nullable(),
  error_field: z.string().nullable(),
  arguments_sha256: z.string(),
  retries: z.number().int(),
  debug: z.record(z.string(), z.unknown()).nullable(),
  created_at: z.string(),
});
export type StepObject = z.infer<typeof StepObject>;

export const stepSelect = {
  id: true,
  runId: true,
  tool: true,
  version: true,
  status: true,
  durationMs: true,
  errorCode: true,
  errorField: true,
  argumentsSha256: true,
  retries: true,
  debugPayload: true,
  createdAt: true,
} as const;
export type StepRow = Prisma.StepGetPayload<{ select: typeof stepSelect }>;

export function serializeStep(step: StepRow): StepObject {
  return {
    id: step.id,
    run: step.runId,
    tool: step.tool,
    version: step.version,
    status: step.status === "ok" ? "ok" : "error",
    duration_ms: step.durationMs,
    error_code: step.errorCode,
    error_field: step.errorField,
    arguments_sha256: step.argumentsSha256,
    retries: step.retries,
    debug: (step.debugPayload as Record<string, unknown> | null) ?? null,
    created_at: isoOffset(step.createdAt),
  };
}
