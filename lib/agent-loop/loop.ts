import "server-only";
import type OpenAI from "openai";
import type { ClientToolDefinition } from "@/lib/agents/schemas";
import { checkAgainst } from "@/lib/contracts/schema";
import { env } from "@/lib/env";
import type { ModelRoute } from "@/lib/models/providers";
import { dispatchToolCall, type ToolEnvelope } from "@/lib/proposals/dispatch";
import { trackCall } from "@/lib/runs/active-calls";
import { openerOf } from "@/lib/runs/driver";
import { RunUsage, type RequiredAction } from "@/lib/runs/schemas";
import { getRun, type RunRow } from "@/lib/runs/service";
import { traceModelRequest } from "@/lib/traces/record";
import { pendingProposalOf, scheduleResumes, type HeldCall } from "./approvals";
import { emitRunEvent, toolCallCompleted } from "./events";
import { callModel, ModelFailure } from "./model-call";
import { modelTools, toolMessageContent } from "./prompt";
import { failUnexpectedly, RunState } from "./run-state";
import { inRunSpan } from "@/lib/observability/spans";

// The loop of a managed run. The model is one more untrusted caller: each tool
// call it makes goes through the dispatcher, exactly as a client's
// POST /v1/runs/{run}/tool_calls, and its envelope goes back as third-party
// content. Bounded by a number of model calls, the run's time budget and the
// run's own deadline; the run's status is read before each model call, so a
// cancel stops it between steps (and aborts the call in flight in this process).
//
//
// What the run keeps between steps — its conversation, usage and held events —
// and how it leaves `active` is ./run-state.ts.

export interface LoopSettings {
  route: ModelRoute;
  temperature: number;
  outputSchema: Record<string, unknown> | null;
  /** The agent's tools that the API client's own server executes: a call to one pauses the run. */
  clientTools: ClientToolDefinition[];
}

type Message = OpenAI.Chat.ChatCompletionMessageParam;

const NOT_RUN_WHILE_WAITING = JSON.stringify({
  untrusted_content: null,
  error: {
    code: "NOT_EXECUTED",
    message: "Not run: another call of this turn waits for people's approval. Call it again once the run goes on.",
    retryable: true,
    field: null,
  },
});

const NOT_JSON = Symbol("not JSON");
function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return NOT_JSON;
  }
}

function outputViolation(schema: Record<string, unknown>, text: string): { field: string; message: string } | null {
  const value = parseJson(text);
  if (value === NOT_JSON) return { field: "/", message: "the answer is not JSON" };
  const violation = checkAgainst(schema, value, "lenient");
  return violation ? { field: violation.field || "/", message: violation.message } : null;
}

function clientFunctionTool(tool: ClientToolDefinition): OpenAI.Chat.ChatCompletionFunctionTool {
  return {
    type: "function",
    function: { name: tool.name, description: tool.description, parameters: tool.parameters },
  };
}

/** A client tool's arguments are checked against its `parameters` before the API client ever sees them. */
function clientCallRefusal(tool: ClientToolDefinition, args: unknown): ToolEnvelope | null {
  const violation = checkAgainst(tool.parameters, args, "lenient");
  if (!violation) return null;
  return {
    ok: false,
    error: {
      code: "INVALID_ARGUMENTS",
      message: `Invalid arguments for ${tool.name} at ${violation.field || "/"}: ${violation.message}.`,
      retryable: false,
      field: violation.field || null,
    },
  };
}

/**
 * Runs the loop until the run completes, fails or stops being active; answers the run as stored then.
 * `stored`: the caller's own write just stored `messages` and made the run active, so the first model
 * call needs no save before it.
 */
export function driveManagedRun(
  run: RunRow,
  messages: Message[],
  settings: LoopSettings,
  options: { stored?: boolean } = {},
): Promise<RunRow> {
  return inRunSpan(run, () => driveLoop(run, messages, settings, options));
}

async function driveLoop(
  run: RunRow,
  messages: Message[],
  settings: LoopSettings,
  options: { stored?: boolean },
): Promise<RunRow> {
  // A resumed run goes on counting from the usage stored before its pause.
  const usage = RunUsage.nullable().catch(null).parse(run.usage);
  const state = new RunState(run, messages, usage, options.stored === true);
  const tracked = trackCall(run.id);
  const budgetMs = Math.min(env.GUICHET_MANAGED_RUN_TIMEOUT_MS, run.expiresAt.getTime() - Date.now());
  const budget = AbortSignal.timeout(Math.max(budgetMs, 1));
  const signal = AbortSignal.any([tracked.signal, budget]);
  const deadline = Date.now() + budgetMs;
  try {
    const tools = [...(await modelTools(run)), ...settings.clientTools.map(clientFunctionTool)];
    const clientTools = new Map(settings.clientTools.map((tool) => [tool.name, tool]));
    let malformedRetried = false;
    let outputRetried = false;
    for (let step = 0; step < env.GUICHET_RUN_MAX_STEPS; step += 1) {
      if (!(await state.checkpoint())) return getRun(run.organizationId, run.id);
      await traceModelRequest(run, state.messages, tools);
      const turn = await callModel({
        route: settings.route,
        messages: state.messages,
        tools,
        temperature: settings.temperature,
        outputSchema: settings.outputSchema,
        timeoutMs: Math.max(1, Math.min(env.GUICHET_MODEL_TIMEOUT_MS, deadline - Date.now())),
        signal,
        onDelta: run.stream ? (content) => emitRunEvent(run, "message.delta", { content }) : undefined,
      });
      state.addUsage(turn.usage);
      const calls = (turn.message.tool_calls ?? []).filter((call) => call.type === "function");
      if (calls.length) {
        const parsed = calls.map((call) => parseJson(call.function.arguments || "{}"));
        const malformed = parsed.findIndex((value) => value === NOT_JSON);
        if (malformed >= 0) {
          // Nothing ran yet: asking the model again is safe, once.
          if (malformedRetried)
            throw new ModelFailure(
              "model_error",
              `The model sent arguments for ${calls[malformed].function.name} that are not JSON, twice.`,
              `tool_calls[${malformed}].arguments`,
            );
          malformedRetried = true;
          continue;
        }
        state.messages.push({ role: "assistant", content: turn.message.content ?? null, tool_calls: calls });
        const pending: RequiredAction["tool_calls"] = [];
        const held: HeldCall[] = [];
        for (const [index, call] of calls.entries()) {
          const client = clientTools.get(call.function.name);
          const startedAt = performance.now();
          await state.record("tool_call.started", {
            tool_call_id: call.id,
            tool: call.function.name,
            client: !!client,
          });
          if (client) {
            const refusal = clientCallRefusal(client, parsed[index]);
            if (refusal) {
              state.messages.push({ role: "tool", tool_call_id: call.id, content: toolMessageContent(refusal) });
              await state.record(
                "tool_call.completed",
                toolCallCompleted({ id: call.id, name: call.function.name }, refusal, startedAt),
              );
            } else pending.push({ id: call.id, name: call.function.name, arguments: parsed[index] });
            continue;
          }
          const envelope = await dispatchToolCall({
            organizationId: run.organizationId,
            runId: run.id,
            // Guichet moves a managed run on for whoever opened it.
            driver: openerOf(run),
            tool: call.function.name,
            arguments: parsed[index],
            signal,
          });
          await state.record(
            "tool_call.completed",
            toolCallCompleted({ id: call.id, name: call.function.name }, envelope, startedAt),
          );
          // A write waiting for people: the model hears about it once they decided (approvals.ts).
          const proposalId = pendingProposalOf(envelope);
          if (proposalId) held.push({ tool_call_id: call.id, proposal_id: proposalId });
          else state.messages.push({ role: "tool", tool_call_id: call.id, content: toolMessageContent(envelope) });
        }
        if (held.length) {
          // Client calls of the same turn are not handed out: the run cannot wait for both at once.
          for (const call of pending)
            state.messages.push({ role: "tool", tool_call_id: call.id, content: NOT_RUN_WHILE_WAITING });
          if (await state.waitForApproval({ calls: held })) await scheduleResumes(run.organizationId, run.id, held);
          return getRun(run.organizationId, run.id);
        }
        if (pending.length) {
          await state.pause({ tool_calls: pending });
          return getRun(run.organizationId, run.id);
        }
        continue;
      }
      const text = turn.message.content ?? "";
      state.messages.push({ role: "assistant", content: text });
      if (!settings.outputSchema) {
        await state.finish({ status: "completed", output: { text } });
        return getRun(run.organizationId, run.id);
      }
      const violation = outputViolation(settings.outputSchema, text);
      if (!violation) {
        await state.finish({ status: "completed", output: { text, json: JSON.parse(text) } });
        return getRun(run.organizationId, run.id);
      }
      if (outputRetried)
        throw new ModelFailure(
          "output_invalid",
          `The answer does not match the agent's output_schema at ${violation.field}: ${violation.message}.`,
          violation.field,
        );
      outputRetried = true;
      state.messages.push({
        role: "user",
        content: `Your answer does not match the expected JSON Schema at ${violation.field}: ${violation.message}. Answer again with JSON that matches the schema.`,
      });
    }
    throw new ModelFailure(
      "max_steps_exceeded",
      `The run reached its limit of ${env.GUICHET_RUN_MAX_STEPS} model calls without a final answer.`,
    );
  } catch (error) {
    if (!(error instanceof ModelFailure)) {
      await failUnexpectedly(run, error, state);
      return getRun(run.organizationId, run.id);
    }
    const failure =
      budget.aborted && error.failure.code === "model_timeout"
        ? { ...error.failure, message: "The run ran out of time before the model's final answer." }
        : error.failure;
    await state.finish({ status: "failed", failure });
    return getRun(run.organizationId, run.id);
  } finally {
    tracked.done();
  }
}
