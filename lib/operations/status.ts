import { z } from "zod";

// The status protocol: after a timeout or a cut connection, ask the
// service what it recorded under the idempotency key — a success (return it),
// a final failure (return it), or nothing it can vouch for (say so, never guess).

export const StatusAnswerBody = z.object({
  status: z.enum(["succeeded", "failed", "not_found"]),
  tool: z.string().nullable().optional(),
  result: z.unknown().optional(),
  error: z
    .object({
      code: z.string().min(1).max(100),
      message: z.string().max(2_000),
      retryable: z.boolean().optional(),
      field: z.string().nullable().optional(),
    })
    .nullable()
    .optional(),
});

export type StatusReading =
  | { kind: "succeeded"; result: unknown }
  | { kind: "failed"; error: { code: string; message: string; field: string | null } }
  | { kind: "unknown"; why: string };

/**
 * Reads the status tool's answer. `not_found` after an ambiguous call is not a
 * failure: the request may still be on its way (a slow service writes after
 * the client gave up), so it stays unknown.
 */
export function readStatusAnswer(raw: unknown, expectedTool: string | null): StatusReading {
  const parsed = StatusAnswerBody.safeParse(raw);
  if (!parsed.success) return { kind: "unknown", why: "the status answer does not follow the protocol" };
  const answer = parsed.data;
  if (answer.status !== "not_found" && expectedTool && answer.tool && answer.tool !== expectedTool) {
    return { kind: "unknown", why: `the key is recorded for another tool (${answer.tool})` };
  }
  if (answer.status === "succeeded") {
    if (answer.result === undefined || answer.result === null)
      return { kind: "unknown", why: "a success was recorded without its result" };
    return { kind: "succeeded", result: answer.result };
  }
  if (answer.status === "failed") {
    if (!answer.error) return { kind: "unknown", why: "a failure was recorded without its error" };
    return {
      kind: "failed",
      error: { code: answer.error.code, message: answer.error.message, field: answer.error.field ?? null },
    };
  }
  return { kind: "unknown", why: "the service has nothing recorded under the key yet" };
}
