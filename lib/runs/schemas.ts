import { z } from "zod";
import { ListQuery } from "@/lib/http/list-query";
import { runStatuses } from "./model";

// Runs' zod schemas and types: safe for the browser (no server import).

export const RunCapabilities = z.enum(["read", "read_write"]);

export const RunInputMessage = z.strictObject({
  role: z.enum(["user", "assistant"]),
  content: z.string().min(1).max(100_000),
});
export const RunMetadata = z
  .record(z.string().min(1).max(64), z.string().max(512))
  .refine((value) => Object.keys(value).length <= 16, "At most 16 metadata pairs.");

export const RunCreateBody = z.strictObject({
  agent: z.string().min(1).max(64),
  /** Given: Guichet runs the agent's model (a managed run). Absent: the caller drives the run with tool calls. */
  input: z
    .union([z.string().min(1).max(100_000), z.array(RunInputMessage).min(1).max(100)])
    .optional()
    .meta({
      description:
        "Starts a managed run: a user message, or a conversation of user and assistant messages. Without it the run is driven by its caller's tool calls.",
    }),
  /** Appended after the agent's instructions, never instead of them. */
  instructions: z.string().max(20_000).nullable().optional(),
  files: z.array(z.string().min(1).max(64)).max(20).optional(),
  capabilities: RunCapabilities.default("read"),
  /** Keeps redacted arguments and viewed results on the run's steps; off unless asked. */
  debug: z.boolean().default(false),
  metadata: RunMetadata.optional().meta({ description: "Up to 16 string pairs of your own, returned with the run." }),
  stream: z.boolean().optional().meta({
    description:
      "With `input`: answer Server-Sent Events (text/event-stream) as the run goes, instead of the run as it starts; the model's text streams as `message.delta`.",
  }),
  wait: z.number().int().min(0).max(60).optional().meta({
    description:
      "With `input`: seconds (at most 60) to wait for the run to pause or end before answering; the run as it stands then. Without it the managed run is answered at once, `active`: it runs in the background.",
  }),
});
export type RunCreateBody = z.infer<typeof RunCreateBody>;

export const RunListQuery = ListQuery.extend({
  agent: z.string().min(1).max(64).optional().meta({
    description: "Only the runs of this agent. A deleted agent's runs are kept with `agent: null` and match no id.",
  }),
});
export type RunListQuery = z.infer<typeof RunListQuery>;

export const RunParams = z.strictObject({ run: z.string().min(1).max(64) });

export const WarningObject = z.object({
  code: z.string(),
  tool: z.string(),
  reason: z.object({
    code: z.string(),
    message: z.string(),
    /** With mcp_member_not_connected: the console page where the run's member connects the tool's server. */
    connect_url: z.string().optional(),
  }),
});

export const RunUsage = z.object({
  input_tokens: z.number().int(),
  output_tokens: z.number().int(),
  model_calls: z.array(
    z.object({ input_tokens: z.number().int(), output_tokens: z.number().int(), duration_ms: z.number().int() }),
  ),
});
export type RunUsage = z.infer<typeof RunUsage>;
export const RunOutput = z.object({ text: z.string().nullable(), json: z.unknown().optional() });
export type RunOutput = z.infer<typeof RunOutput>;
export const RunFailure = z.object({
  code: z.enum(["model_error", "model_timeout", "output_invalid", "max_steps_exceeded", "internal_error"]),
  message: z.string(),
  field: z.string().nullable(),
});
export type RunFailure = z.infer<typeof RunFailure>;

export const PendingToolCall = z.object({ id: z.string(), name: z.string(), arguments: z.unknown() });
export const RequiredAction = z.object({ tool_calls: z.array(PendingToolCall) });
export type RequiredAction = z.infer<typeof RequiredAction>;

export const ToolOutputsBody = z.strictObject({
  tool_outputs: z
    .array(z.strictObject({ tool_call_id: z.string().min(1).max(100), output: z.string().max(100_000) }))
    .min(1)
    .max(16),
});
export type ToolOutputsBody = z.infer<typeof ToolOutputsBody>;

export const RunObject = z.object({
  id: z.string(),
  agent: z.string().nullable().meta({
    description:
      "The agent the run executes; null once that agent was deleted (the run, its steps and its proposals are kept, and it accepts no more tool calls).",
  }),
  status: z.enum(runStatuses).meta({
    description:
      "`requires_action`: a managed run waits for its client tools' outputs; `requires_approval`: it waits for people to decide its `pending_proposals` and resumes by itself.",
  }),
  opened_by: z
    .object({
      api_key: z.string().nullable().meta({ description: "The API key that opened the run (`key_…`)." }),
      member: z.string().nullable().meta({ description: "The member who opened the run from the console (`mem_…`)." }),
    })
    .meta({
      description:
        "Who opened the run, the only principal that may make its tool calls and answer its tool outputs (anyone else gets 403 `run_not_yours`).",
    }),
  managed: z.boolean().meta({ description: "Guichet runs the agent's model (created with `input`)." }),
  model: z.string().nullable().meta({ description: "The model a managed run calls; null for a client-driven run." }),
  capabilities: RunCapabilities,
  instructions: z.string(),
  capability_set: z.array(z.object({ tool: z.string(), version: z.number().int(), effect: z.enum(["read", "write"]) })),
  warnings: z.array(WarningObject),
  files: z.array(z.string()),
  debug: z.boolean(),
  metadata: z.record(z.string(), z.string()),
  output: RunOutput.nullable().meta({
    description:
      "A completed managed run's answer: its last message, and with the agent's output_schema the validated JSON.",
  }),
  usage: RunUsage.nullable().meta({ description: "Tokens of a managed run, per model call." }),
  error: RunFailure.nullable().meta({ description: "Why a managed run failed." }),
  required_action: RequiredAction.nullable().meta({
    description:
      "In `requires_action`: the calls of the agent's client tools the model made, to answer with POST /v1/runs/{run}/tool_outputs.",
  }),
  pending_proposals: z.array(z.string()).meta({
    description:
      "In `requires_approval`: the proposals the run waits for. Once each is decided or expired the run goes on by itself: an approved one is committed by Guichet, a refused one reaches the model as APPROVAL_REFUSED with the reason, an expired one as APPROVAL_EXPIRED.",
  }),
  expires_at: z.string(),
  created_at: z.string(),
  updated_at: z.string(),
});
export type RunObject = z.infer<typeof RunObject>;

export const RunMessage = z.object({
  role: z.enum(["system", "user", "assistant", "tool"]),
  content: z.string().nullable(),
  tool_calls: z
    .array(
      z.object({
        id: z.string(),
        type: z.literal("function"),
        function: z.object({ name: z.string(), arguments: z.string() }),
      }),
    )
    .optional(),
  tool_call_id: z.string().optional(),
});
export type RunMessage = z.infer<typeof RunMessage>;
