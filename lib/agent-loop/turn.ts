import "server-only";
import type OpenAI from "openai";
import type { ClientToolDefinition } from "@/lib/agents/schemas";
import { checkAgainst } from "@/lib/contracts/schema";
import { findContract } from "@/lib/contracts/registry";
import { db } from "@/lib/db";
import { dispatchToolCall, type ToolEnvelope } from "@/lib/proposals/dispatch";
import { effectiveStatus as proposalStatus } from "@/lib/proposals/state";
import { parseToolName } from "@/lib/dispatch/arguments";
import { releaseOperationLock } from "@/lib/limits/write-lock";
import { openerOf } from "@/lib/runs/driver";
import type { RequiredAction } from "@/lib/runs/schemas";
import { capabilitySetOf, type RunRow } from "@/lib/runs/service";
import { pendingProposalOf, scheduleResumes, type HeldCall } from "./approvals";
import { toolCallCompleted } from "./events";
import { toolMessageContent } from "./prompt";
import type { RunState } from "./run-state";

// One model answer's tool calls, run in order: each through the dispatcher (as
// a client's POST /v1/runs/{run}/tool_calls), its result stored in the
// conversation before the next one starts. A write waiting for people holds
// the run in requires_approval; client tools pause it in requires_action.
//
// After a takeover (./takeover.ts), the calls of the last stored answer that
// have no stored result were in flight, or not yet made, when the instance
// stopped: a read is made again only if its contract's retry class is `safe`;
// a write is never sent again — the same arguments find the same proposal,
// and an approved one goes through the commit's status-by-idempotency-key
// protocol (success, recorded failure, or OUTCOME_UNKNOWN).

type FunctionCall = OpenAI.Chat.ChatCompletionMessageFunctionToolCall;

const NOT_RUN_WHILE_WAITING = JSON.stringify({
  untrusted_content: null,
  error: {
    code: "NOT_EXECUTED",
    message: "Not run: another call of this turn waits for people's approval. Call it again once the run goes on.",
    retryable: true,
    field: null,
  },
});

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

/** A read whose contract forbids repeating it, found in flight after a takeover: its outcome is unknown. */
const INTERRUPTED_READ: ToolEnvelope = {
  ok: false,
  error: {
    code: "OUTCOME_UNKNOWN",
    message:
      "This call was in flight when the instance running the run stopped. Its contract does not allow repeating it, so it was not sent again: whether the service ran it is unknown.",
    retryable: false,
    field: null,
  },
};

/** A call's contract as the run froze it: its effect and whether a read may be repeated. */
async function frozenContract(run: RunRow, tool: string) {
  const key = parseToolName(tool)?.key;
  const entry = capabilitySetOf(run).find((candidate) => candidate.key === key);
  if (!entry) return null;
  return (await findContract(run.organizationId, entry.key, entry.version))?.contract ?? null;
}

/**
 * The stopped instance's commit of the proposal may still hold its target's lock (it lapses only after twice
 * the tool's timeout): freed, so the commit's status check runs now rather than after a refusal.
 */
export async function freeStoppedCommit(run: Pick<RunRow, "id" | "organizationId">, proposalId: string) {
  const proposal = await db.proposal.findFirst({
    where: { id: proposalId, organizationId: run.organizationId, runId: run.id },
    select: { id: true, targetType: true, targetId: true },
  });
  if (!proposal) return;
  const target =
    proposal.targetType && proposal.targetId
      ? { organizationId: run.organizationId, type: proposal.targetType, id: proposal.targetId }
      : { organizationId: run.organizationId, type: "proposal", id: proposal.id };
  const sent = await db.operation.findMany({
    where: { organizationId: run.organizationId, runId: run.id, proposalId, status: "running" },
    select: { id: true },
  });
  for (const operation of sent) await releaseOperationLock(target, operation.id);
}

/** Dispatches a call again after a takeover, under the rules above. */
async function redispatch(
  run: RunRow,
  call: { tool: string; arguments: unknown },
  signal: AbortSignal,
): Promise<ToolEnvelope> {
  const contract = await frozenContract(run, call.tool);
  const dispatch = (args: unknown) =>
    dispatchToolCall({
      organizationId: run.organizationId,
      runId: run.id,
      driver: openerOf(run),
      tool: call.tool,
      arguments: args,
      signal,
    });
  // Unknown to the run: the dispatcher refuses it before anything is sent, as it did the first time.
  if (!contract) return dispatch(call.arguments);
  if (contract.effect === "read") return contract.retry === "safe" ? dispatch(call.arguments) : INTERRUPTED_READ;
  // A write's candidate arguments only ever find or make its proposal (never a second commit): see write-path.ts.
  const first = await dispatch(call.arguments);
  const proposalId = first.ok ? null : first.error.proposal_id;
  if (!proposalId || (first.ok === false && !["APPROVAL_REQUIRED", "PROPOSAL_CONSUMED"].includes(first.error.code)))
    return first;
  const proposal = await db.proposal.findFirst({ where: { id: proposalId, organizationId: run.organizationId } });
  const status = proposal ? proposalStatus(proposal) : null;
  // Approved (its commit may have been in flight) or consumed: the commit by proposal id decides by its key.
  if (status !== "approved" && status !== "consumed") return first;
  await freeStoppedCommit(run, proposalId);
  for (;;) {
    const commit = await dispatch({ proposal_id: proposalId });
    // The stopped instance's lock on the target lapses on its own: wait for it rather than answer a refusal.
    if (commit.ok || commit.error.code !== "RATE_LIMITED" || signal.aborted) return commit;
    await new Promise((resolve) => setTimeout(resolve, commit.error.retry_after_ms ?? 1_000));
  }
}

/**
 * Whether the model's answer needs storing before its calls run: not when every call is a read its contract
 * lets be made again. A takeover then finds the conversation without that answer and asks the model again,
 * which repeats nothing that may not be repeated; the answer is stored with the first result.
 */
export async function storeBeforeCalls(
  run: RunRow,
  calls: readonly FunctionCall[],
  clientTools: ReadonlyMap<string, ClientToolDefinition>,
): Promise<boolean> {
  for (const call of calls) {
    if (clientTools.has(call.function.name)) return true;
    const contract = await frozenContract(run, call.function.name);
    if (contract?.effect !== "read" || contract.retry !== "safe") return true;
  }
  return false;
}

export interface TurnContext {
  run: RunRow;
  state: RunState;
  clientTools: Map<string, ClientToolDefinition>;
  signal: AbortSignal;
}

/**
 * Runs `calls` (parsed arguments alongside) of the model's answer already in the conversation; `recovered`
 * after a takeover. Answers "next" when the model is to be called again, "stopped" when the run paused,
 * or stopped being this loop's.
 */
export async function runTurn(
  { run, state, clientTools, signal }: TurnContext,
  calls: FunctionCall[],
  parsed: unknown[],
  recovered = false,
): Promise<"next" | "stopped"> {
  const pending: RequiredAction["tool_calls"] = [];
  const held: HeldCall[] = [];
  for (const [index, call] of calls.entries()) {
    const client = clientTools.get(call.function.name);
    const startedAt = performance.now();
    await state.record("tool_call.started", { tool_call_id: call.id, tool: call.function.name, client: !!client });
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
    const request = { tool: call.function.name, arguments: parsed[index] };
    const envelope = recovered
      ? await redispatch(run, request, signal)
      : await dispatchToolCall({
          organizationId: run.organizationId,
          runId: run.id,
          // Guichet moves a managed run on for whoever opened it.
          driver: openerOf(run),
          ...request,
          signal,
          // The loop's last write, fenced by status and lease, looked at the run a moment ago (./run-state.ts).
          run,
        });
    await state.record(
      "tool_call.completed",
      toolCallCompleted({ id: call.id, name: call.function.name }, envelope, startedAt),
    );
    // A write waiting for people: the model hears about it once they decided (approvals.ts).
    const proposalId = pendingProposalOf(envelope);
    if (proposalId) held.push({ tool_call_id: call.id, proposal_id: proposalId });
    else {
      state.messages.push({ role: "tool", tool_call_id: call.id, content: toolMessageContent(envelope) });
      // Stored before the next call starts: a takeover finds this result and never makes the call again.
      if (!(await state.save())) return "stopped";
    }
  }
  if (held.length) {
    // Client calls of the same turn are not handed out: the run cannot wait for both at once.
    for (const call of pending)
      state.messages.push({ role: "tool", tool_call_id: call.id, content: NOT_RUN_WHILE_WAITING });
    if (await state.waitForApproval({ calls: held })) await scheduleResumes(run.organizationId, run.id, held);
    return "stopped";
  }
  if (pending.length) {
    await state.pause({ tool_calls: pending });
    return "stopped";
  }
  return "next";
}

/** The calls of the conversation's last answer that have no result yet (a takeover's open turn). */
export function openTurn(messages: OpenAI.Chat.ChatCompletionMessageParam[]): FunctionCall[] {
  const last = messages.findLastIndex((message) => message.role === "assistant");
  const answer = messages[last];
  if (last < 0 || answer.role !== "assistant" || !answer.tool_calls?.length) return [];
  const answered = new Set(
    messages.slice(last + 1).flatMap((message) => (message.role === "tool" ? [message.tool_call_id] : [])),
  );
  return answer.tool_calls.filter((call): call is FunctionCall => call.type === "function" && !answered.has(call.id));
}
