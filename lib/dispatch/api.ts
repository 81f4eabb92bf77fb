import { defineEndpoint } from "@/lib/http/endpoint";
import { RunParams } from "@/lib/runs/schemas";
import { ToolCallBody, ToolEnvelopeObject } from "./schemas";

export * from "./schemas";

export const toolCallEndpoint = defineEndpoint({
  method: "POST",
  path: "/v1/runs/{run}/tool_calls",
  tag: "Runs",
  summary:
    "Call a tool of the run: the only way any tool executes. Answers 200 with the tool envelope, success or refusal",
  auth: "both",
  scopes: ["runs:write"],
  params: RunParams,
  body: ToolCallBody,
  response: ToolEnvelopeObject,
  errors: ["not_found", "unknown_parameter", "run_not_yours"],
  // Tool results are payloads we never store; a repeated call is safe by design
  // (reads have no effect, a preview finds its card, a commit is exactly-once by proposal).
  idempotencyReplay: "re-execute",
  // Arguments of any depth reach the dispatcher, which refuses the deep ones as
  // ARGUMENTS_TOO_LARGE and records the step (the body size limit still applies).
  maxJsonDepth: Number.POSITIVE_INFINITY,
});
