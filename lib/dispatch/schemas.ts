import { z } from "zod";
import { toolErrorCodes } from "@/lib/executors/errors";

// The tool-call body and envelope: safe for the browser (no server import).

export const ToolCallBody = z.strictObject({
  /** A tool key (`calculate`, `mcp_3_get_customer`) or an exact version (`calculate@1`). */
  tool: z.string().min(1).max(300),
  arguments: z.unknown().optional(),
});
export type ToolCallBody = z.infer<typeof ToolCallBody>;

export const ToolEnvelopeObject = z.union([
  z.object({
    ok: z.literal(true),
    result: z.unknown(),
    evidence: z.object({
      run: z.string(),
      step: z.string(),
      tool: z.string(),
      effect: z.enum(["read", "write"]),
      duration_ms: z.number().int(),
      arguments_sha256: z.string(),
      retries: z.number().int(),
      untrusted: z.literal(true),
      // Set by the proposals engine: the proposal a preview produced; a commit's operation and proposal.
      proposal: z.record(z.string(), z.unknown()).nullable().optional(),
      proposal_error: z.string().optional(),
      operation: z.string().optional(),
      proposal_id: z.string().optional(),
      idempotency_key: z.string().optional(),
      replayed: z.boolean().optional(),
      recovered_by: z.literal("status").optional(),
    }),
  }),
  z.object({
    ok: z.literal(false),
    error: z.object({
      code: z.enum(toolErrorCodes),
      message: z.string(),
      retryable: z.boolean(),
      field: z.string().nullable(),
      retry_after_ms: z.number().int().optional(),
      proposal_id: z.string().nullable().optional(),
      upstream_code: z
        .string()
        .max(60)
        .optional()
        .describe(
          "With UPSTREAM_ERROR: the service's own code of its refusal (for instance AMOUNT_EXCEEDS_REMAINING or NOT_FOUND), as the service sent it, so a client branches on a field rather than parsing `message`.",
        ),
      reason: z
        .object({
          code: z.literal("mcp_member_not_connected"),
          message: z.string(),
          connect_url: z.string(),
          state: z.enum(["not_connected", "needs_reconnect"]),
        })
        .optional()
        .describe(
          "With TOOL_UNAVAILABLE for a connector that acts as each member: the run's member has not connected it, or must reconnect; connect_url is where they do it.",
        ),
    }),
  }),
]);
