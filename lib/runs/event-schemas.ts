import { z } from "zod";
import { RequiredAction, RunFailure, RunOutput, RunUsage, WarningObject } from "./schemas";

// The Server-Sent Events of a managed run (POST /v1/runs with `stream: true`,
// GET /v1/runs/{run}/events): their names and payloads. Browser-safe, so the
// console's panel reads the stream with the same schemas the server writes.
// No event carries a tool call's arguments or result: those are in the run's
// messages (GET /v1/runs/{run}/messages), behind the same scope.

export const RunCreatedEvent = z.object({
  run: z.string(),
  agent: z.string().nullable(),
  model: z.string().nullable(),
  warnings: z.array(WarningObject),
});
export const MessageDeltaEvent = z.object({
  content: z.string().meta({ description: "The next piece of the model's text, as the provider streamed it." }),
});
export const ToolCallStartedEvent = z.object({
  tool_call_id: z.string(),
  tool: z.string(),
  client: z
    .boolean()
    .meta({ description: "A client tool of the agent: the API client runs it (run.requires_action)." }),
});
export const ToolCallCompletedEvent = z.object({
  tool_call_id: z.string(),
  tool: z.string(),
  status: z.enum(["ok", "error"]),
  error_code: z.string().nullable().meta({ description: "The tool envelope's error code (APPROVAL_REQUIRED…)." }),
  duration_ms: z.number().int().nullable().meta({ description: "Null for a client tool (its time is the caller's)." }),
  step: z.string().nullable().meta({ description: "The step the dispatcher recorded, when it recorded one." }),
  proposal: z.string().nullable().meta({ description: "The proposal the call made or referred to, if any." }),
});
export const RunRequiresActionEvent = z.object({ required_action: RequiredAction });
export const RunRequiresApprovalEvent = z.object({
  proposals: z.array(z.string()).meta({ description: "The pending proposals the run waits for." }),
});
export const RunCompletedEvent = z.object({ output: RunOutput, usage: RunUsage.nullable() });
export const RunFailedEvent = z.object({ error: RunFailure, usage: RunUsage.nullable() });

export const runEventSchemas = {
  "run.created": RunCreatedEvent,
  "message.delta": MessageDeltaEvent,
  "tool_call.started": ToolCallStartedEvent,
  "tool_call.completed": ToolCallCompletedEvent,
  "run.requires_action": RunRequiresActionEvent,
  "run.requires_approval": RunRequiresApprovalEvent,
  "run.completed": RunCompletedEvent,
  "run.failed": RunFailedEvent,
} as const;
export type RunEventType = keyof typeof runEventSchemas;
export type RunEventData<T extends RunEventType> = z.infer<(typeof runEventSchemas)[T]>;
export const RUN_EVENT_TYPES = Object.keys(runEventSchemas) as RunEventType[];

/** After one of these the run waits or is over: the stream ends (re-attach with GET /v1/runs/{run}/events). */
export const STREAM_END_EVENTS: ReadonlySet<string> = new Set([
  "run.requires_action",
  "run.requires_approval",
  "run.completed",
  "run.failed",
]);

/** One event as the console's client hands it over: the SSE `id`, `event` and parsed `data`. */
export type RunEvent = { [T in RunEventType]: { id: number; event: T; data: RunEventData<T> } }[RunEventType];
