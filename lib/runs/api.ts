import { z } from "zod";
import { defineEndpoint } from "@/lib/http/endpoint";
import { ListQuery } from "@/lib/http/validation";
import { isoOffset } from "@/lib/time";
import { capabilitySetOf, effectiveStatus, fileIdsOf, type RunRow } from "./model";
import { StepObject } from "./step-object";

export const RunCapabilities = z.enum(["read", "read_write"]);

export const RunCreateBody = z.strictObject({
  agent: z.string().min(1).max(64),
  instructions: z.string().max(20_000).nullable().optional(),
  files: z.array(z.string().min(1).max(64)).max(20).optional(),
  capabilities: RunCapabilities.default("read"),
  /** Keeps redacted arguments and viewed results on the run's steps; off unless asked. */
  debug: z.boolean().default(false),
});
export type RunCreateBody = z.infer<typeof RunCreateBody>;

export const RunListQuery = ListQuery.extend({
  agent: z.string().min(1).max(64).optional().meta({ description: "Only the runs of this agent. A deleted agent's runs are kept with `agent: null` and match no id." }),
});
export type RunListQuery = z.infer<typeof RunListQuery>;

export const RunParams = z.strictObject({ run: z.string().min(1).max(64) });

const WarningObject = z.object({ code: z.string(), tool: z.string(), reason: z.object({ code: z.string(), message: z.string() }) });

export const RunObject = z.object({
  id: z.string(),
  agent: z.string().nullable().meta({ description: "The agent the run executes; null once that agent was deleted (the run, its steps and its proposals are kept, and it accepts no more tool calls)." }),
  status: z.enum(["active", "suspended", "cancelled", "completed", "expired"]),
  capabilities: RunCapabilities,
  instructions: z.string(),
  capability_set: z.array(z.object({ tool: z.string(), version: z.number().int(), effect: z.enum(["read", "write"]) })),
  warnings: z.array(WarningObject),
  files: z.array(z.string()),
  debug: z.boolean(),
  expires_at: z.string(),
  created_at: z.string(),
  updated_at: z.string(),
});
export type RunObject = z.infer<typeof RunObject>;

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
    expires_at: isoOffset(run.expiresAt),
    created_at: isoOffset(run.createdAt),
    updated_at: isoOffset(run.updatedAt),
  };
}

export const createRunEndpoint = defineEndpoint({
  method: "POST", path: "/v1/runs", tag: "Runs", summary: "Start a run of an agent, with its capability set frozen for the run's life",
  auth: "both", scopes: ["runs:write"], body: RunCreateBody, status: 201,
  response: z.object({ data: RunObject, warnings: z.array(WarningObject) }),
  errors: ["agent_inactive", "not_found", "invalid_parameter"],
});

export const listRunsEndpoint = defineEndpoint({
  method: "GET", path: "/v1/runs", tag: "Runs", summary: "List runs, newest first",
  auth: "both", scopes: ["runs:read"], query: RunListQuery,
  response: z.object({ data: z.array(RunObject), next_cursor: z.string().nullable() }),
});

export const getRunEndpoint = defineEndpoint({
  method: "GET", path: "/v1/runs/{run}", tag: "Runs", summary: "One run",
  auth: "both", scopes: ["runs:read"], params: RunParams,
  response: z.object({ data: RunObject }), errors: ["not_found"],
});

export const listStepsEndpoint = defineEndpoint({
  method: "GET", path: "/v1/runs/{run}/steps", tag: "Runs", summary: "A run's steps (one per tool call), newest first, without payloads",
  auth: "both", scopes: ["runs:read"], params: RunParams, query: ListQuery,
  response: z.object({ data: z.array(StepObject), next_cursor: z.string().nullable() }), errors: ["not_found"],
});

export const cancelRunEndpoint = defineEndpoint({
  method: "POST", path: "/v1/runs/{run}/cancel", tag: "Runs", summary: "Cancel a run: no further tool call is accepted and calls in flight are aborted",
  auth: "both", scopes: ["runs:write"], params: RunParams,
  response: z.object({ data: RunObject, cancellation: z.object({ stopped_calls: z.number().int(), note: z.string() }) }),
  errors: ["not_found", "conflict"],
});
