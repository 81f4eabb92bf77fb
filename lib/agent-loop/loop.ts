import "server-only";
import type OpenAI from "openai";
import type { ClientToolDefinition } from "@/lib/agents/schemas";
import { checkAgainst } from "@/lib/contracts/schema";
import { env } from "@/lib/env";
import type { ModelRoute } from "@/lib/models/providers";
import { Prisma } from "@/lib/db";
import { trackCall } from "@/lib/runs/active-calls";
import { RunUsage } from "@/lib/runs/schemas";
import { getRun, type RunRow } from "@/lib/runs/service";
import { traceModelRequest } from "@/lib/traces/record";
import { answersFor, type HeldCall, type SettledProposals } from "./approvals";
import { emitRunEvent } from "./events";
import { holdLease } from "./lease";
import { callModel, ModelFailure } from "./model-call";
import { modelTools } from "./prompt";
import { failUnexpectedly, RunState } from "./run-state";
import { inRunSpan } from "@/lib/observability/spans";
import { openTurn, runTurn, storeBeforeCalls, type TurnContext } from "./turn";

// The loop of a managed run. The model is one more untrusted caller: each tool
// call it makes goes through the dispatcher, exactly as a client's
// POST /v1/runs/{run}/tool_calls, and its envelope goes back as third-party
// content. Bounded by a number of model calls, the run's time budget and the
// run's own deadline; the run's status is read before each model call, so a
// cancel stops it between steps, and the lease's heartbeat aborts the call in
// flight on whichever instance executes the run (./lease.ts).
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

/**
 * Runs the loop until the run completes, fails or stops being active; answers the run as stored then.
 * `stored`: the caller's own write just stored `messages` and made the run active, so the first model
 * call needs no save before it.
 */
export async function driveManagedRun(
  run: RunRow,
  messages: Message[],
  settings: LoopSettings,
  options: DriveOptions = {},
): Promise<RunRow> {
  return (await inRunSpan(run, () => driveLoop(run, messages, settings, options))).run;
}

/**
 * What one stretch of the loop ends with: the run as stored once it stopped, and the status and usage
 * this stretch itself left it with. They differ when another stretch moved the run on in between (a
 * resume after a quick approval may complete it before this one reads it back); the span and the
 * metrics of this stretch count what it did.
 */
interface Stretch {
  run: RunRow;
  status: string;
  usage: unknown;
}

interface DriveOptions {
  stored?: boolean;
  /** Taken over from a stopped instance (./takeover.ts): the open turn's calls go on under its rules. */
  recover?: boolean;
  /** Resumed after people decided: the held calls to answer first. */
  held?: { calls: HeldCall[]; proposals: SettledProposals };
}

async function driveLoop(
  run: RunRow,
  messages: Message[],
  settings: LoopSettings,
  options: DriveOptions,
): Promise<Stretch> {
  // A resumed run goes on counting from the usage stored before its pause.
  const usage = RunUsage.nullable().catch(null).parse(run.usage);
  const state = new RunState(run, messages, usage, options.stored === true);
  const tracked = trackCall(run.id);
  const lease = holdLease(run);
  const budgetMs = Math.min(env.GUICHET_MANAGED_RUN_TIMEOUT_MS, run.expiresAt.getTime() - Date.now());
  const budget = AbortSignal.timeout(Math.max(budgetMs, 1));
  const signal = AbortSignal.any([tracked.signal, budget, lease.signal]);
  const deadline = Date.now() + budgetMs;
  const settled = async (): Promise<Stretch> => {
    const stored = await getRun(run.organizationId, run.id);
    return { run: stored, status: state.leftWith ?? stored.status, usage: state.usage };
  };
  try {
    const tools = [...(await modelTools(run)), ...settings.clientTools.map(clientFunctionTool)];
    const clientTools = new Map(settings.clientTools.map((tool) => [tool.name, tool]));
    const context: TurnContext = { run, state, clientTools, signal };
    if (options.held) {
      // The answers of the calls held for people, the approved ones committed; stored with the held calls cleared.
      const answers = await answersFor(run, options.held.calls, options.held.proposals, signal, options.recover);
      for (const answer of answers) state.messages.push({ role: "tool", ...answer });
      if (!(await state.save({ pendingApproval: Prisma.DbNull }))) return settled();
    } else if (options.recover) {
      // Taken over: the calls of the last stored answer without a stored result (./turn.ts says how each goes on).
      const open = openTurn(state.messages);
      const parsed = open.map((call) => parseJson(call.function.arguments || "{}"));
      if (open.length && (await runTurn(context, open, parsed, true)) === "stopped") return settled();
    }
    let malformedRetried = false;
    let outputRetried = false;
    for (let step = 0; step < env.GUICHET_RUN_MAX_STEPS; step += 1) {
      if (!(await state.checkpoint())) return settled();
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
        // Stored before any call is made: a takeover goes on with these calls, never asks the model again.
        if ((await storeBeforeCalls(run, calls, clientTools)) && !(await state.save())) return settled();
        if ((await runTurn(context, calls, parsed)) === "stopped") return settled();
        continue;
      }
      const text = turn.message.content ?? "";
      state.messages.push({ role: "assistant", content: text });
      if (!settings.outputSchema) {
        await state.finish({ status: "completed", output: { text } });
        return settled();
      }
      const violation = outputViolation(settings.outputSchema, text);
      if (!violation) {
        await state.finish({ status: "completed", output: { text, json: JSON.parse(text) } });
        return settled();
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
      return settled();
    }
    const failure =
      budget.aborted && error.failure.code === "model_timeout"
        ? { ...error.failure, message: "The run ran out of time before the model's final answer." }
        : error.failure;
    await state.finish({ status: "failed", failure });
    return settled();
  } finally {
    lease.release();
    tracked.done();
  }
}
