import { z } from "zod";
import { defineEndpoint } from "@/lib/http/endpoint";
import { ListQuery } from "@/lib/http/list-query";
import { isoOffset } from "@/lib/time";
import { capabilitySetOf, effectiveStatus, fileIdsOf, type RunRow } from "./model";
import { StepObject } from "./step-object";
import { runEventSchemas } from "./event-schemas";
import {
  RunCreateBody,
  RunFailure,
  RequiredAction,
  RunListQuery,
  RunMessage,
  RunObject,
  RunOutput,
  RunParams,
  RunUsage,
  ToolOutputsBody,
  WarningObject,
} from "./schemas";

export * from "./schemas";

export function serializeRun(run: RunRow): RunObject {
  return {
    id: run.id,
    agent: run.agentId,
    status: effectiveStatus(run),
    capabilities: run.capabilities === "read_write" ? "read_write" : "read",
    instructions: run.instructions,
    capability_set: capabilitySetOf(run).map((c) => ({ tool: c.key, version: c.version, effect: c.effect })),
    warnings: z.array(WarningObject).catch([]).parse(run.warnings),
    files: fileIdsOf(run),
    debug: run.debug,
    opened_by: { api_key: run.apiKeyId, member: run.memberId },
    managed: run.modelId !== null,
    model: run.modelId,
    metadata: z
      .record(z.string(), z.string())
      .catch({})
      .parse(run.metadata ?? {}),
    output: RunOutput.nullable().catch(null).parse(run.output),
    usage: RunUsage.nullable().catch(null).parse(run.usage),
    error: RunFailure.nullable().catch(null).parse(run.failure),
    required_action: RequiredAction.nullable().catch(null).parse(run.requiredAction),
    pending_proposals:
      effectiveStatus(run) === "requires_approval"
        ? z
            .object({ calls: z.array(z.object({ proposal_id: z.string() })) })
            .catch({ calls: [] })
            .parse(run.pendingApproval)
            .calls.map((call) => call.proposal_id)
        : [],
    expires_at: isoOffset(run.expiresAt),
    created_at: isoOffset(run.createdAt),
    updated_at: isoOffset(run.updatedAt),
  };
}

export const createRunEndpoint = defineEndpoint({
  method: "POST",
  path: "/v1/runs",
  tag: "Runs",
  summary:
    "Start a run of an agent, with its capability set frozen for the run's life. With `input`, Guichet runs the agent's model in the background (a managed run) and answers at once, or after `wait` seconds at most once the run pauses or ends",
  auth: "both",
  scopes: ["runs:write"],
  body: RunCreateBody,
  status: 201,
  response: z.object({ data: RunObject, warnings: z.array(WarningObject) }),
  errors: ["agent_inactive", "not_found", "invalid_parameter", "model_provider_unavailable"],
  eventStream: {
    description:
      "With `stream: true` (and `input`): Server-Sent Events as the run goes, `run.created` first. The stream ends after `run.requires_action`, `run.requires_approval`, `run.completed` or `run.failed`, or when the run is cancelled or expires; closing it does not stop the run (re-attach with GET /v1/runs/{run}/events). Refusals before the run exists are the usual JSON envelopes.",
    events: runEventSchemas,
  },
});

export const listRunEventsEndpoint = defineEndpoint({
  method: "GET",
  path: "/v1/runs/{run}/events",
  tag: "Runs",
  summary:
    "Re-attach to a managed run's Server-Sent Events: every event after `Last-Event-ID` (all of them without it), then the live ones, until the run waits or ends",
  auth: "both",
  scopes: ["runs:read"],
  params: RunParams,
  errors: ["not_found", "conflict"],
  eventStream: {
    description:
      "Each event has `id` (its sequence number in the run: send the last one received as the `Last-Event-ID` header to resume after it), `event` and `data` (JSON). The stream ends after `run.requires_action`, `run.requires_approval`, `run.completed` or `run.failed`, or at once when the run waits, is over, or is cancelled and nothing is left to send. A client-driven run has no events (409 conflict).",
    events: runEventSchemas,
  },
});

export const listRunsEndpoint = defineEndpoint({
  method: "GET",
  path: "/v1/runs",
  tag: "Runs",
  summary: "List runs, newest first",
  auth: "both",
  scopes: ["runs:read"],
  query: RunListQuery,
  response: z.object({ data: z.array(RunObject), next_cursor: z.string().nullable() }),
});

export const getRunEndpoint = defineEndpoint({
  method: "GET",
  path: "/v1/runs/{run}",
  tag: "Runs",
  summary: "One run",
  auth: "both",
  scopes: ["runs:read"],
  params: RunParams,
  response: z.object({ data: RunObject }),
  errors: ["not_found"],
});

export const listStepsEndpoint = defineEndpoint({
  method: "GET",
  path: "/v1/runs/{run}/steps",
  tag: "Runs",
  summary: "A run's steps (one per tool call), newest first, without payloads",
  auth: "both",
  scopes: ["runs:read"],
  params: RunParams,
  query: ListQuery,
  response: z.object({ data: z.array(StepObject), next_cursor: z.string().nullable() }),
  errors: ["not_found"],
});

export const cancelRunEndpoint = defineEndpoint({
  method: "POST",
  path: "/v1/runs/{run}/cancel",
  tag: "Runs",
  summary: "Cancel a run: no further tool call is accepted; calls in flight stop as their contracts declare",
  auth: "both",
  scopes: ["runs:write"],
  params: RunParams,
  response: z.object({
    data: RunObject,
    cancellation: z.object({
      stopped_calls: z
        .number()
        .int()
        .meta({ description: "Calls in flight cut at once (their contract says `abort`)." }),
      uninterruptible_calls: z.number().int().meta({
        description:
          "Calls in flight whose contract is not interruptible once sent: they run to the service's answer, which is recorded.",
      }),
      note: z.string(),
    }),
  }),
  errors: ["not_found", "conflict"],
});

export const listRunMessagesEndpoint = defineEndpoint({
  method: "GET",
  path: "/v1/runs/{run}/messages",
  tag: "Runs",
  summary:
    "A managed run's conversation with its model, in order: instructions, input, answers and tool results (empty for a client-driven run)",
  auth: "both",
  scopes: ["runs:read"],
  params: RunParams,
  response: z.object({
    data: z.array(RunMessage),
    purged_at: z.string().nullable().meta({
      description:
        "When the retention job deleted this run's messages (GUICHET_RUN_RETENTION_DAYS): `data` is then empty; the run, its steps and usage stay.",
    }),
  }),
  errors: ["not_found"],
});

export const createToolOutputsEndpoint = defineEndpoint({
  method: "POST",
  path: "/v1/runs/{run}/tool_outputs",
  tag: "Runs",
  summary:
    "Answer the client tool calls a managed run waits for (requires_action): the run resumes and answers when it completes, fails or waits again",
  auth: "both",
  scopes: ["runs:write"],
  params: RunParams,
  body: ToolOutputsBody,
  response: z.object({ data: RunObject }),
  errors: [
    "not_found",
    "invalid_parameter",
    "run_not_yours",
    "run_not_waiting",
    "agent_deleted",
    "model_provider_unavailable",
  ],
});
