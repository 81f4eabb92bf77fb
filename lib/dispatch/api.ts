import { z } from "zod";
import { defineEndpoint } from "@/lib/http/endpoint";
import { toolErrorCodes } from "@/lib/executors/errors";
import { RunParams } from "@/lib/runs/api";

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
      run: z.string(), step: z.string(), tool: z.string(), effect: z.enum(["read", "write"]), duration_ms: z.number().int(),
      arguments_sha256: z.string(), retries: z.number().int(), untrusted: z.literal(true),
      // Set by the proposals engine (issue 6): the proposal a preview produced; a commit's operation and proposal.
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
      code: z.enum(toolErrorCodes), message: z.string(), retryable: z.boolean(), field: z.string().nullable(),
      retry_after_ms: z.number().int().optional(), proposal_id: z.string().nullable().optional(),
    }),
  }),
]);

export const toolCallEndpoint = defineEndpoint({
  method: "POST", path: "/v1/runs/{run}/tool_calls", tag: "Runs",
  summary: "Call a tool of the run: the only way any tool executes. Answers 200 with the tool envelope, success or refusal",
  auth: "both", scopes: ["runs:write"], params: RunParams, body: ToolCallBody,
  response: ToolEnvelopeObject, errors: ["not_found", "unknown_parameter"],
  // Tool results are payloads we never store; a repeated call is safe by design
  // (reads have no effect, a preview finds its card, a commit is exactly-once by proposal).
  idempotencyReplay: "re-execute",
  // Arguments of any depth reach the dispatcher, which refuses the deep ones as
  // ARGUMENTS_TOO_LARGE and records the step (the body size limit still applies).
  maxJsonDepth: Number.POSITIVE_INFINITY,
});
