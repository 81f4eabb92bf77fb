import "server-only";
import type OpenAI from "openai";
import { checkAgainst } from "@/lib/contracts/schema";
import { db, isUniqueViolation, Prisma } from "@/lib/db";
import { dispatchToolCall, type ToolEnvelope } from "@/lib/proposals/dispatch";
import { env } from "@/lib/env";
import type { ModelRoute } from "@/lib/models/providers";
import { trackCall } from "@/lib/runs/active-calls";
import { openerOf } from "@/lib/runs/driver";
import type { ClientToolDefinition } from "@/lib/agents/schemas";
import { RunUsage, type RequiredAction, type RunFailure, type RunOutput } from "@/lib/runs/schemas";
import { effectiveStatus, getRun, type RunRow } from "@/lib/runs/service";
import { driverFirst } from "@/lib/db/driver";
import { recordRunStatus } from "@/lib/webhooks/events";
import { log } from "@/lib/log";
import { pendingProposalOf, scheduleResumes, type HeldCall, type PendingApproval } from "./approvals";
import {
  announceRunEvent,
  emitRunEvent,
  forgetRunSeq,
  heldEventRows,
  heldEventsStored,
  knownNextSeq,
  storeRunStatusEvent,
  toolCallCompleted,
  type HeldRunEvent,
} from "./events";
import type { RunEventData, RunEventType } from "@/lib/runs/event-schemas";
import { traceAnswer, traceModelRequest } from "@/lib/traces/record";
import { callModel, ModelFailure } from "./model-call";
import { moveActiveRunOnDriver } from "./store";
import { modelTools, toolMessageContent } from "./prompt";

// The loop of a managed run. The model is one more untrusted caller: each tool
// call it makes goes through the dispatcher, exactly as a client's
// POST /v1/runs/{run}/tool_calls, and its envelope goes back as third-party
// content. Bounded by a number of model calls, the run's time budget and the
// run's own deadline; the run's status is read before each model call, so a
// cancel stops it between steps (and aborts the call in flight in this process).
//
// A step's own cost is mostly its database writes: each is a commit, and
// Prisma compiles each query with its values, the whole conversation included.
// So the conversation is written at pauses and ends (in their status
// transaction) and otherwise at most every SAVE_EVERY_MS, and the tool-call
// events of a run nobody streams are held and stored with that write, in one
// transaction. A streamed run's events are stored as they happen: its reader
// shows them live. Held events are stored before a pause's or end's own event,
// so the numbering keeps the order.

export interface LoopSettings {
  route: ModelRoute;
  temperature: number;
  outputSchema: Record<string, unknown> | null;
  /** The agent's tools that the API client's own server executes: a call to one pauses the run. */
  clientTools: ClientToolDefinition[];
}

type Message = OpenAI.Chat.ChatCompletionMessageParam;

const INTERNAL_FAILURE: RunFailure = {
  code: "internal_error",
  message: "Guichet could not go on with this run because of an internal error; nothing more will run in it.",
  field: null,
};

const NOT_RUN_WHILE_WAITING = JSON.stringify({
  untrusted_content: null,
  error: {
    code: "NOT_EXECUTED",
    message: "Not run: another call of this turn waits for people's approval. Call it again once the run goes on.",
    retryable: true,
    field: null,
  },
});

/**
 * How often a running loop writes its conversation (and a non-streamed run's events): a crash leaves the
 * run with its conversation as of a step at most this old, which nothing resumes (an active run's loop is
 * not taken over; it expires). Pauses and ends always write everything, in their status transaction.
 */
const SAVE_EVERY_MS = 1_000;

const RUN_STATUS = `SELECT "status", "expiresAt" FROM "Run" WHERE "id" = $1 AND "organizationId" = $2 LIMIT 1`;

const NOT_JSON = Symbol("not JSON");
function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return NOT_JSON;
  }
}

type HeldRows = Awaited<ReturnType<typeof heldEventRows>>;

class RunState {
  readonly usage: RunUsage;
  private held: HeldRunEvent[] = [];
  /** When the conversation was last written: by the caller just before the loop, or by `checkpoint`. */
  private savedAt: number;
  constructor(
    readonly run: RunRow,
    readonly messages: Message[],
    usage: RunUsage | null,
    stored: boolean,
  ) {
    this.usage = usage ?? { input_tokens: 0, output_tokens: 0, model_calls: [] };
    this.savedAt = stored ? performance.now() : -Infinity;
  }

  addUsage(call: RunUsage["model_calls"][number]): void {
    this.usage.model_calls.push(call);
    this.usage.input_tokens += call.input_tokens;
    this.usage.output_tokens += call.output_tokens;
  }

  /** Stores the event now when the run streams, else with the run's next write. */
  async record<T extends RunEventType>(type: T, data: RunEventData<T>): Promise<void> {
    if (this.run.stream) await emitRunEvent(this.run, type, data);
    else this.held.push({ type, data });
  }

  /**
   * Writes the held events with `write`, in one transaction, with the number of the event that may follow
   * them in it (when known). A number taken meanwhile by another writer (which one loop per run makes
   * unexpected) fails the whole transaction: it is tried again numbered from the database, up to three times.
   */
  async withHeld<T>(write: (rows: HeldRows, nextSeq: number | undefined) => Promise<T>): Promise<T> {
    for (let attempt = 0; ; attempt += 1) {
      const rows = await heldEventRows(this.run, this.held);
      try {
        const result = await write(rows, knownNextSeq(this.run.id, rows));
        this.held = [];
        heldEventsStored(this.run.id, rows);
        return result;
      } catch (error) {
        forgetRunSeq(this.run.id);
        if (!isUniqueViolation(error) || attempt >= 3) throw error;
      }
    }
  }

  private progress() {
    return {
      transcript: this.messages as unknown as Prisma.InputJsonArray,
      usage: this.usage as unknown as Prisma.InputJsonObject,
    };
  }

  /** The run's status read again: on the driver when it can (no Prisma query machinery), else through Prisma. */
  private async stillActive(): Promise<boolean> {
    const state = await driverFirst<{ status: string; expiresAt: Date }>(
      { sql: RUN_STATUS, values: [this.run.id, this.run.organizationId] },
      () =>
        db.run.findFirst({
          where: { id: this.run.id, organizationId: this.run.organizationId },
          select: { status: true, expiresAt: true },
        }),
    );
    return state !== null && effectiveStatus(state) === "active";
  }

  /**
   * Before a model call: false when the run is no longer active (cancelled, expired). The conversation
   * so far and the held events are written at most every SAVE_EVERY_MS; in between, the run's status
   * is only read (no commit, no conversation to compile into a query).
   */
  async checkpoint(): Promise<boolean> {
    const where = {
      id: this.run.id,
      organizationId: this.run.organizationId,
      status: "active",
      expiresAt: { gt: new Date() },
    };
    if (performance.now() - this.savedAt < SAVE_EVERY_MS) return this.stillActive();
    const update = () => db.run.updateMany({ where, data: this.progress() });
    const saved = await this.withHeld(async (rows) => {
      if (!rows.length) return update();
      // The events are stored even when the run stopped meanwhile: their tool calls did run.
      const [moved] = await db.$transaction([update(), db.runEvent.createMany({ data: rows })]);
      return moved;
    });
    this.savedAt = performance.now();
    return saved.count === 1;
  }

  /** Waits for the API client's outputs of its client tools (POST /v1/runs/{run}/tool_outputs resumes). */
  async pause(action: RequiredAction): Promise<void> {
    await this.leaveActive(
      { status: "requires_action", requiredAction: action as unknown as Prisma.InputJsonObject },
      "run.requires_action",
      { required_action: action },
    );
  }

  /** Waits for people to decide the held calls' proposals; a job resumes the run (see approvals.ts). */
  waitForApproval(approval: PendingApproval): Promise<boolean> {
    const proposals = approval.calls.map((call) => call.proposal_id);
    return this.leaveActive(
      { status: "requires_approval", pendingApproval: approval as unknown as Prisma.InputJsonObject },
      "run.requires_approval",
      { proposals },
      { proposals },
    );
  }

  /** Ends the run, unless something else ended it first (a cancel wins). */
  async finish(
    end: { status: "completed"; output: RunOutput } | { status: "failed"; failure: RunFailure },
  ): Promise<void> {
    await traceAnswer(this.run, end);
    if (end.status === "completed")
      await this.leaveActive({ status: "completed", output: end.output as Prisma.InputJsonObject }, "run.completed", {
        output: end.output,
        usage: this.usage,
      });
    else
      await this.leaveActive(
        { status: "failed", failure: end.failure as unknown as Prisma.InputJsonObject },
        "run.failed",
        { error: end.failure, usage: this.usage },
        { failureCode: end.failure.code },
      );
  }

  /** Moves the run out of `active` with its conversation and held events; false when it had already left. */
  private async leaveActive<T extends StatusEventType>(
    data: Prisma.RunUpdateManyMutationInput,
    type: T,
    event: RunEventData<T>,
    details: StatusDetails = {},
  ): Promise<boolean> {
    const moved = await this.withHeld((rows, nextSeq) =>
      moveActiveRun(this.run, { ...data, ...this.progress() }, rows, nextSeq, type, event, details),
    );
    if (moved) announceRunEvent(this.run.id);
    return moved;
  }
}

type StatusEventType = "run.requires_action" | "run.requires_approval" | "run.completed" | "run.failed";
type StatusDetails = { failureCode?: string | null; proposals?: string[] };

/**
 * One transaction moves an active run to a waiting or final status: the events its loop held, the new
 * status with `data`, the webhook event and the stream event after the held ones. False when the run was
 * no longer active (a cancel or an expiry won); the caller announces the event once this committed.
 */
async function moveActiveRun<T extends StatusEventType>(
  run: RunRow,
  data: Prisma.RunUpdateManyMutationInput,
  rows: HeldRows,
  nextSeq: number | undefined,
  type: T,
  event: RunEventData<T>,
  details: StatusDetails,
): Promise<boolean> {
  const onDriver = moveActiveRunOnDriver(run, data, rows, nextSeq, {
    type,
    data: event as unknown as Prisma.InputJsonObject,
  });
  if (onDriver !== null) return onDriver;
  return db.$transaction(async (tx) => {
    if (rows.length) await tx.runEvent.createMany({ data: rows });
    const moved = await tx.run.updateMany({
      where: { id: run.id, organizationId: run.organizationId, status: "active" },
      data,
    });
    if (moved.count !== 1) return false;
    await recordRunStatus(tx, run, type, details);
    await storeRunStatusEvent(tx, run, type, event, nextSeq);
    return true;
  });
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
 * An error Guichet did not expect while driving a run: the run fails with a typed `internal_error` (never
 * left active behind a 500); the log names the error's kind only, never its message (it may quote data).
 */
export async function failUnexpectedly(run: RunRow, error: unknown, state?: RunState): Promise<void> {
  log("error", "run.loop_failed", { run: run.id, error: error instanceof Error ? error.name : "unknown" });
  if (state) {
    try {
      return await state.finish({ status: "failed", failure: INTERNAL_FAILURE });
    } catch {
      // The conversation itself may be what the database refused: the run ends without saving it.
    }
  }
  // Without the loop's state, the stored conversation is left as it is; the events it held are stored.
  const end = (rows: HeldRows, nextSeq?: number) =>
    moveActiveRun(
      run,
      { status: "failed", failure: INTERNAL_FAILURE as unknown as Prisma.InputJsonObject },
      rows,
      nextSeq,
      "run.failed",
      { error: INTERNAL_FAILURE, usage: state?.usage ?? null },
      { failureCode: INTERNAL_FAILURE.code },
    );
  let ended;
  try {
    ended = state ? await state.withHeld(end) : await end([]);
  } catch (error) {
    // The held events may be what the database refused: the run ends without them.
    if (!state) throw error;
    ended = await end([]);
  }
  if (ended) announceRunEvent(run.id);
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
  options: { stored?: boolean } = {},
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
