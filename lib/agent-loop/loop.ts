import "server-only";
import type OpenAI from "openai";
import { checkAgainst } from "@/lib/contracts/schema";
import { db, Prisma } from "@/lib/db";
import { dispatchToolCall, type ToolEnvelope } from "@/lib/proposals/dispatch";
import { env } from "@/lib/env";
import type { ModelRoute } from "@/lib/models/providers";
import { trackCall } from "@/lib/runs/active-calls";
import type { ClientToolDefinition } from "@/lib/agents/schemas";
import type { RequiredAction, RunFailure, RunOutput, RunUsage } from "@/lib/runs/schemas";
import { getRun, type RunRow } from "@/lib/runs/service";
import { callModel, ModelFailure } from "./model-call";
import { modelTools, toolMessageContent } from "./prompt";

// The loop of a managed run. The model is one more untrusted caller: each tool
// call it makes goes through the dispatcher, exactly as a client's
// POST /v1/runs/{run}/tool_calls, and its envelope goes back as third-party
// content. Bounded by a number of model calls, the run's time budget and the
// run's own deadline; the run's status is read before each step, so a cancel
// stops it between steps (and aborts the call in flight in this process).

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

class RunState {
  readonly usage: RunUsage;
  constructor(
    readonly run: RunRow,
    readonly messages: Message[],
    usage: RunUsage | null,
  ) {
    this.usage = usage ?? { input_tokens: 0, output_tokens: 0, model_calls: [] };
  }

  addUsage(call: RunUsage["model_calls"][number]): void {
    this.usage.model_calls.push(call);
    this.usage.input_tokens += call.input_tokens;
    this.usage.output_tokens += call.output_tokens;
  }

  private progress() {
    return {
      transcript: this.messages as unknown as Prisma.InputJsonArray,
      usage: this.usage as unknown as Prisma.InputJsonObject,
    };
  }

  /** Saves the conversation so far; false when the run is no longer active (cancelled, expired). */
  async save(): Promise<boolean> {
    const saved = await db.run.updateMany({
      where: {
        id: this.run.id,
        organizationId: this.run.organizationId,
        status: "active",
        expiresAt: { gt: new Date() },
      },
      data: this.progress(),
    });
    return saved.count === 1;
  }

  /** Waits for the API client's outputs of its client tools (POST /v1/runs/{run}/tool_outputs resumes). */
  async pause(action: RequiredAction): Promise<void> {
    await db.run.updateMany({
      where: { id: this.run.id, organizationId: this.run.organizationId, status: "active" },
      data: {
        status: "requires_action",
        requiredAction: action as unknown as Prisma.InputJsonObject,
        ...this.progress(),
      },
    });
  }

  /** Ends the run, unless something else ended it first (a cancel wins). */
  async finish(
    end: { status: "completed"; output: RunOutput } | { status: "failed"; failure: RunFailure },
  ): Promise<void> {
    const data =
      end.status === "completed"
        ? { status: "completed", output: end.output as Prisma.InputJsonObject }
        : { status: "failed", failure: end.failure as unknown as Prisma.InputJsonObject };
    await db.run.updateMany({
      where: { id: this.run.id, organizationId: this.run.organizationId, status: "active" },
      data: { ...data, ...this.progress() },
    });
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

/** Runs the loop until the run completes, fails or stops being active; answers the run as stored then. */
export async function driveManagedRun(run: RunRow, messages: Message[], settings: LoopSettings): Promise<RunRow> {
  const state = new RunState(run, messages, null);
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
      if (!(await state.save())) return getRun(run.organizationId, run.id);
      const turn = await callModel({
        route: settings.route,
        messages: state.messages,
        tools,
        temperature: settings.temperature,
        outputSchema: settings.outputSchema,
        timeoutMs: Math.max(1, Math.min(env.GUICHET_MODEL_TIMEOUT_MS, deadline - Date.now())),
        signal,
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
        for (const [index, call] of calls.entries()) {
          const client = clientTools.get(call.function.name);
          if (client) {
            const refusal = clientCallRefusal(client, parsed[index]);
            if (refusal)
              state.messages.push({ role: "tool", tool_call_id: call.id, content: toolMessageContent(refusal) });
            else pending.push({ id: call.id, name: call.function.name, arguments: parsed[index] });
            continue;
          }
          const envelope = await dispatchToolCall({
            organizationId: run.organizationId,
            runId: run.id,
            tool: call.function.name,
            arguments: parsed[index],
            signal,
          });
          state.messages.push({ role: "tool", tool_call_id: call.id, content: toolMessageContent(envelope) });
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
    if (!(error instanceof ModelFailure)) throw error;
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
