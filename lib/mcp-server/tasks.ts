import "server-only";
import {
  ErrorCode,
  RELATED_TASK_META_KEY,
  type CallToolResult,
  type CreateTaskResult,
  type Task,
} from "@modelcontextprotocol/sdk/types.js";
import { recordAudit } from "@/lib/audit/record";
import { db } from "@/lib/db";
import { asStatus as operationStatus, settledStatuses } from "@/lib/operations/service";
import { proposalInclude, storedPolicy, type ProposalRow } from "@/lib/proposals/service";
import { effectiveStatus } from "@/lib/proposals/state";
import type { RunRow } from "@/lib/runs/service";
import { ProtocolError } from "./http";
import { callRunTool, dispatchRunTool, proposalIdOf, proposesChanges, toCallToolResult } from "./tools";

// MCP tasks (2025-11-25) at the door, for calls that become proposals. A task
// is the proposal itself: its id is the proposal's id, its state is read from
// the proposal and its commit's operation on every request, so a task survives
// a restart and any instance answers for it. It belongs to the session's run
// (and so to its organization, agent and caller): another session's task id
// finds nothing. People decide in the console; the door commits the approved
// write itself (the same commit as a `{"proposal_id"}` call, idempotent by its
// key) and the task's result is that commit's answer.

/** How often a client should poll, and how often a blocking `tasks/result` reads the proposal again. */
export const TASK_POLL_INTERVAL_MS = 1000;
/** A task's result stays readable this long after the proposal's own expiry. */
const RESULT_RETENTION_MS = 24 * 60 * 60 * 1000;
const LIST_PAGE = 50;

function ttlOf(proposal: Pick<ProposalRow, "createdAt" | "expiresAt">): number {
  return proposal.expiresAt.getTime() - proposal.createdAt.getTime() + RESULT_RETENTION_MS;
}

function notFound(taskId: string): ProtocolError {
  // -32602 is what the protocol names for an unknown task id.
  return new ProtocolError(ErrorCode.InvalidParams, `Task not found: ${taskId}`, { code: "task_not_found" });
}

async function findTaskProposal(run: RunRow, taskId: string, now = new Date()): Promise<ProposalRow | null> {
  if (taskId.length > 200) return null;
  const proposal = await db.proposal.findFirst({
    where: { id: taskId, organizationId: run.organizationId, runId: run.id },
    include: proposalInclude,
  });
  if (!proposal || now.getTime() > proposal.createdAt.getTime() + ttlOf(proposal)) return null;
  return proposal;
}

async function commitOperationOf(proposal: ProposalRow) {
  return db.operation.findFirst({
    where: { organizationId: proposal.organizationId, proposalId: proposal.id },
    orderBy: { createdAt: "desc" },
  });
}

function latest(...dates: Array<Date | undefined>): string {
  return new Date(
    Math.max(...dates.filter((date): date is Date => date !== undefined).map((d) => d.getTime())),
  ).toISOString();
}

/** The task of a proposal, as it stands now. */
export async function taskOf(proposal: ProposalRow, consoleOrigin: string, now = new Date()): Promise<Task> {
  const base = {
    taskId: proposal.id,
    ttl: ttlOf(proposal),
    createdAt: proposal.createdAt.toISOString(),
    pollInterval: TASK_POLL_INTERVAL_MS,
  };
  const approvalUrl = `${consoleOrigin}/approbations/${proposal.id}`;
  const status = effectiveStatus(proposal, now);
  const updated = latest(proposal.updatedAt);
  switch (status) {
    case "pending": {
      const approvals = proposal.decisions.filter((d) => d.decision === "approve").length;
      const required = storedPolicy(proposal).approvals_required;
      return {
        ...base,
        status: "input_required",
        lastUpdatedAt: updated,
        statusMessage: `Waiting for people to approve proposal ${proposal.id} (${approvals} of ${required}) at ${approvalUrl}. Nothing was changed yet.`,
      };
    }
    case "refused": {
      const refusal = proposal.decisions.find((d) => d.decision === "refuse");
      return {
        ...base,
        status: "failed",
        lastUpdatedAt: updated,
        statusMessage: `Refused${refusal?.reason ? `: ${refusal.reason}` : ""}. Nothing was changed.`,
      };
    }
    case "expired":
      return {
        ...base,
        status: "failed",
        lastUpdatedAt: updated,
        statusMessage: "The proposal expired before it was committed. Nothing was changed.",
      };
    case "superseded":
    case "revised":
      return {
        ...base,
        status: "failed",
        lastUpdatedAt: updated,
        statusMessage: `Proposal ${proposal.supersededBy ?? "a newer one"} replaced this one: nothing was changed under it.`,
      };
    case "withdrawn":
      return {
        ...base,
        status: "cancelled",
        lastUpdatedAt: updated,
        statusMessage: "Withdrawn by the requester before anyone decided. Nothing was changed.",
      };
    case "approved":
    case "consumed": {
      const operation = await commitOperationOf(proposal);
      const lastUpdatedAt = latest(proposal.updatedAt, operation?.updatedAt);
      if (!operation || !settledStatuses.includes(operationStatus(operation.status)))
        return { ...base, status: "working", lastUpdatedAt, statusMessage: "Approved: the write is being committed." };
      const settled = operationStatus(operation.status);
      if (settled === "succeeded" || settled === "accepted")
        return { ...base, status: "completed", lastUpdatedAt, statusMessage: `Committed (operation ${operation.id}).` };
      return {
        ...base,
        status: "failed",
        lastUpdatedAt,
        statusMessage: `The commit ended ${settled} (operation ${operation.id}); tasks/result gives the typed error.`,
      };
    }
  }
}

export interface TaskContext {
  consoleOrigin: string;
  /** Aborted when the HTTP request that waits ends. */
  signal?: AbortSignal;
}

/**
 * A task-augmented `tools/call`: the call is dispatched as any other, and the
 * proposal it made (or named) becomes the task. A tool that makes no proposal
 * cannot be a task; a call refused before any proposal exists answers as a
 * JSON-RPC error carrying the typed refusal, since there is no task to hold it.
 */
export async function callRunToolAsTask(
  run: RunRow,
  name: string,
  args: unknown,
  context: TaskContext & { signal?: AbortSignal },
): Promise<CreateTaskResult> {
  if (!(await proposesChanges(run, name)))
    throw new ProtocolError(
      ErrorCode.MethodNotFound,
      `${name} cannot run as a task (its execution.taskSupport is forbidden): call it without "task".`,
      { code: "task_not_supported" },
    );
  const envelope = await dispatchRunTool(run, name, args, context.signal);
  const proposalId = proposalIdOf(envelope);
  const proposal = proposalId ? await findTaskProposal(run, proposalId) : null;
  if (!proposal) {
    const answer = await toCallToolResult(run, envelope, { consoleOrigin: context.consoleOrigin });
    const error = envelope.ok ? null : envelope.error;
    throw new ProtocolError(
      ErrorCode.InvalidParams,
      error ? `${error.code}: ${error.message}` : "The call made no proposal, so there is no task to follow.",
      { code: error?.code ?? "no_proposal", ...(error ? { error } : {}), result: answer },
    );
  }
  const card = await toCallToolResult(run, envelope, { consoleOrigin: context.consoleOrigin });
  const text = card.content.find((block) => block.type === "text");
  return {
    task: await taskOf(proposal, context.consoleOrigin),
    // What a client shows the model right away, while the task waits for people.
    ...(text && text.type === "text"
      ? { _meta: { "io.modelcontextprotocol/model-immediate-response": text.text } }
      : {}),
  };
}

export async function getTask(run: RunRow, taskId: string, context: TaskContext): Promise<Task> {
  const proposal = await findTaskProposal(run, taskId);
  if (!proposal) throw notFound(taskId);
  const task = await taskOf(proposal, context.consoleOrigin);
  // A client may only poll: an approved write is committed on its behalf, and the task reads "working" meanwhile.
  if (task.status === "working") startCommit(run, proposal, context.consoleOrigin);
  return task;
}

/** Commits started on this instance, so that polling does not start a second one (a second one would only wait and replay). */
const committing = new Set<string>();

function startCommit(run: RunRow, proposal: ProposalRow, consoleOrigin: string): void {
  if (committing.has(proposal.id)) return;
  committing.add(proposal.id);
  void commitTask(run, proposal, consoleOrigin)
    .catch(() => undefined)
    .finally(() => committing.delete(proposal.id));
}

/** The commit of the task's proposal as the session's run: its result, or its typed refusal, replayed once settled. */
function commitTask(run: RunRow, proposal: ProposalRow, consoleOrigin: string): Promise<CallToolResult> {
  return callRunTool(run, proposal.tool, { proposal_id: proposal.id }, { consoleOrigin });
}

function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    const timer = setTimeout(done, ms);
    function done() {
      clearTimeout(timer);
      signal?.removeEventListener("abort", done);
      resolve();
    }
    signal?.addEventListener("abort", done, { once: true });
  });
}

/**
 * `tasks/result`: blocks while people decide (the spec's rule for a task not
 * yet terminal), then answers what the commit answered — the result and its
 * evidence, or the typed refusal (refused, expired, withdrawn: never committed).
 */
export async function taskResult(run: RunRow, taskId: string, context: TaskContext): Promise<CallToolResult> {
  for (;;) {
    const proposal = await findTaskProposal(run, taskId);
    if (!proposal) throw notFound(taskId);
    if (effectiveStatus(proposal) === "pending") {
      if (context.signal?.aborted)
        throw new ProtocolError(ErrorCode.RequestTimeout, "The request ended while the task waited for people.");
      await sleep(TASK_POLL_INTERVAL_MS, context.signal);
      continue;
    }
    const result = await commitTask(run, proposal, context.consoleOrigin);
    return { ...result, _meta: { ...result._meta, [RELATED_TASK_META_KEY]: { taskId } } };
  }
}

export async function listTasks(
  run: RunRow,
  cursor: string | undefined,
  context: TaskContext,
): Promise<{ tasks: Task[]; nextCursor?: string }> {
  const now = new Date();
  const rows = await db.proposal.findMany({
    where: { organizationId: run.organizationId, runId: run.id },
    include: proposalInclude,
    orderBy: [{ createdAt: "desc" }, { id: "desc" }],
    take: LIST_PAGE + 1,
    ...(cursor ? { cursor: { id: cursor }, skip: 1 } : {}),
  });
  const page = rows.slice(0, LIST_PAGE);
  const live = page.filter((row) => now.getTime() <= row.createdAt.getTime() + ttlOf(row));
  return {
    tasks: await Promise.all(live.map((row) => taskOf(row, context.consoleOrigin, now))),
    ...(rows.length > LIST_PAGE ? { nextCursor: page[page.length - 1].id } : {}),
  };
}

/**
 * `tasks/cancel`: the requester withdraws a proposal nobody decided yet. Once
 * approved, the write is committed or being committed and cannot be taken
 * back; a task already over cannot be cancelled either.
 */
export async function cancelTask(run: RunRow, taskId: string, context: TaskContext): Promise<Task> {
  const proposal = await findTaskProposal(run, taskId);
  if (!proposal) throw notFound(taskId);
  const status = effectiveStatus(proposal);
  if (status === "pending") {
    // Conditional on the status it was read in: an approval that lands first wins, and is answered below.
    const withdrawn = await db.$transaction(async (tx) => {
      const moved = await tx.proposal.updateMany({
        where: {
          id: proposal.id,
          organizationId: run.organizationId,
          status: "pending",
          expiresAt: { gt: new Date() },
        },
        data: { status: "withdrawn", dedupeKey: null, escalateAt: null },
      });
      if (moved.count === 1)
        await recordAudit(
          {
            organizationId: run.organizationId,
            // The requester: the session's opener, a member (possibly through an OAuth client) or an API key.
            actor: run.memberId ? { type: "member", id: run.memberId } : { type: "api_key", id: run.apiKeyId ?? "" },
            action: "proposal.withdrawn",
            target: { type: "proposal", id: proposal.id },
            details: { tool: proposal.tool, arguments_sha256: proposal.argumentsSha256 },
          },
          tx,
        );
      return moved;
    });
    const after = await findTaskProposal(run, taskId);
    if (!after) throw notFound(taskId);
    if (withdrawn.count === 1) return taskOf(after, context.consoleOrigin);
    return refuseCancel(await taskOf(after, context.consoleOrigin));
  }
  return refuseCancel(await taskOf(proposal, context.consoleOrigin));
}

function refuseCancel(task: Task): never {
  const why =
    task.status === "working" || task.status === "completed"
      ? "people approved this write: it is committed or being committed, and a commit cannot be undone by cancelling"
      : `the task is already ${task.status}`;
  throw new ProtocolError(ErrorCode.InvalidParams, `Cannot cancel task ${task.taskId}: ${why}.`, {
    code: "task_not_cancellable",
    status: task.status,
  });
}
