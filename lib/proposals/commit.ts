import { randomBytes } from "node:crypto";
import { checkAgainst } from "@/lib/contracts/schema";
import { ExecutionFailure, executeUnderContract } from "@/lib/dispatch/execution";
import type { WriteCall, WriteOutcome } from "@/lib/dispatch/write-path";
import { asToolError, ToolError, type ToolErrorCode } from "@/lib/executors";
import { acquireWriteLock, releaseWriteLock, type WriteLockTarget } from "@/lib/limits/write-lock";
import { askStatus, asToolErrorCode, settleByStatus, storedError } from "@/lib/operations/recover";
import { countTelemetry } from "@/lib/telemetry/service";
import {
  claimOperation,
  findOperationByKey,
  openOperation,
  recordFailure,
  recordSuccess,
  settledStatuses,
  asStatus,
  type OperationRow,
  type OutcomeTrail,
  type StoredError,
} from "@/lib/operations/service";
import { assertCommittable, assertRunKeepsItsAgent, loadProposalForCommit } from "./commit-checks";
import { idempotencyKeyFor } from "./idempotency-key";
import type { ProposalRow } from "./service";
import { inCommitSpan } from "@/lib/observability/spans";

// The commit: the arguments come from the stored proposal, the
// idempotency key from Guichet (run + proposal + tool), one writer per target
// at a time. The service's answer is trusted only when it proves itself: a
// success must match the tool's output schema, a refusal must come from the
// service; anything else is asked again by idempotency key, and what cannot be
// established stays unknown — never a guessed success.

/** Refusals the service itself answered: nothing was written, asking again would say the same. */
const DEFINITIVE: readonly ToolErrorCode[] = [
  "VERSION_CONFLICT",
  "IDEMPOTENCY_KEY_REUSED",
  "INVALID_ARGUMENTS",
  "TOOL_UNAVAILABLE",
];
const LOCK_POLL_MS = 25;
const LOCK_WAIT_CAP_MS = 20_000;

const stamp = () => new Date().toISOString();
/** How long what the service answered is tried again while the database is away (a restart). */
const RECORD_RETRY_MS = 30_000;

/**
 * Once the write was sent, what the service answered must be recorded: a database away for a moment would
 * otherwise strand the operation `running`, the run ended by the error and nobody left to settle it. Tried
 * again (each record is a conditional update: doing it twice changes nothing); a ToolError is an answer.
 */
async function recorded<T>(step: () => Promise<T>): Promise<T> {
  const until = Date.now() + RECORD_RETRY_MS;
  for (let wait = 100; ; wait = Math.min(wait * 2, 2_000)) {
    try {
      return await step();
    } catch (error) {
      if (error instanceof ToolError || Date.now() + wait > until) throw error;
      await new Promise((resolve) => setTimeout(resolve, wait));
    }
  }
}

/**
 * A write a person revised before approving: the caller (the model, an MCP
 * client) learns that the arguments executed are the person's, and which, so
 * its transcript and the effect agree.
 */
function revisionEvidence(proposal: ProposalRow): Record<string, unknown> {
  if (!proposal.revisedBy) return {};
  return {
    revision: {
      note: "A person revised the arguments before approving: this result is for the revised arguments below, not the ones first proposed.",
      revised_by: proposal.revisedBy,
      original_proposal: proposal.supersedes,
      arguments: proposal.arguments,
      changes: proposal.revisionChanges ?? [],
    },
  };
}

function success(operation: OperationRow, proposal: ProposalRow, extra: Record<string, unknown> = {}): WriteOutcome {
  return {
    result: operation.result,
    retries: 0,
    evidence: {
      operation: operation.id,
      proposal_id: proposal.id,
      idempotency_key: operation.idempotencyKey,
      ...revisionEvidence(proposal),
      ...extra,
    },
  };
}

/** The answer an operation already settled gives to every later attempt with its key. */
function answerFrom(operation: OperationRow, proposal: ProposalRow): WriteOutcome {
  const status = asStatus(operation.status);
  if (operation.argumentsSha256 !== proposal.argumentsSha256) {
    throw new ToolError(
      "IDEMPOTENCY_KEY_REUSED",
      `The key of operation ${operation.id} was used with other arguments: nothing was sent.`,
      { proposal_id: proposal.id },
    );
  }
  if (status === "succeeded") return success(operation, proposal, { replayed: true });
  // A long write the service accepted: the acceptance again, and where it stands now is get_operation's to say.
  if (status === "accepted") return success(operation, proposal, { replayed: true, status: "running" });
  if (status === "unknown") {
    throw new ToolError(
      "OUTCOME_UNKNOWN",
      `Operation ${operation.id}: the service's outcome is unknown; the run is suspended until an operator resolves it.`,
      { proposal_id: proposal.id },
    );
  }
  if (status === "cancelled") {
    const when = operation.result ? "at the service while it was still working on it" : "before anything was sent";
    throw new ToolError("CANCELLED", `Operation ${operation.id} was cancelled ${when}.`, { proposal_id: proposal.id });
  }
  const error = (operation.error ?? {}) as Partial<StoredError>;
  const resolved = operation.resolution ? ` An operator found it not applied: ${operation.resolution}` : "";
  throw new ToolError(
    asToolErrorCode(error.code ?? "UPSTREAM_ERROR"),
    `${error.message ?? "The operation failed."}${resolved}`,
    {
      field: error.field ?? null,
      proposal_id: proposal.id,
      ...(error.upstream_code !== undefined ? { upstream_code: error.upstream_code } : {}),
    },
  );
}

function lockTarget(proposal: ProposalRow): WriteLockTarget {
  return proposal.targetType && proposal.targetId
    ? { organizationId: proposal.organizationId, type: proposal.targetType, id: proposal.targetId }
    : { organizationId: proposal.organizationId, type: "proposal", id: proposal.id };
}

/** Waits for the target's lock, or for another attempt with the same key to settle the operation. */
async function waitForTurn(
  target: WriteLockTarget,
  holder: string,
  ttlMs: number,
  key: string,
  until: number,
): Promise<"locked" | OperationRow | null> {
  for (;;) {
    if (await acquireWriteLock(target, holder, ttlMs)) return "locked";
    const operation = await findOperationByKey(key);
    if (operation && settledStatuses.includes(asStatus(operation.status))) return operation;
    if (Date.now() >= until) return null;
    await new Promise((resolve) => setTimeout(resolve, LOCK_POLL_MS + Math.floor(Math.random() * LOCK_POLL_MS)));
  }
}

/** Commits an approved proposal: the only way a write reaches a service. */
export function commitProposal(call: WriteCall, proposalId: string): Promise<WriteOutcome> {
  return inCommitSpan(proposalId, call.contract, () => commitOnce(call, proposalId));
}

async function commitOnce(call: WriteCall, proposalId: string): Promise<WriteOutcome> {
  const { run, contract } = call;
  const proposal = await loadProposalForCommit(run.id, run.organizationId, proposalId, contract);
  const key = idempotencyKeyFor(run.id, proposal.id, contract);
  const previous = await findOperationByKey(key);
  if (previous && settledStatuses.includes(asStatus(previous.status))) return answerFrom(previous, proposal);
  try {
    await assertCommittable(proposal);
  } catch (error) {
    // An earlier attempt gave up waiting for the lock and left its operation queued: it ends
    // with this refusal, so the record says why nothing was sent.
    if (previous?.status === "queued") await recordFailure(previous, storedError(asToolError(error)));
    // A running one was sent while its proposal was approved and unexpired, and its sender never heard back
    // (its instance died): whatever became of the proposal since, only the service's status settles it —
    // refusing here would leave it running for good, though the service may have committed it.
    if (previous?.status !== "running") throw error;
  }
  const operation = await openOperation({
    organizationId: run.organizationId,
    runId: run.id,
    proposalId: proposal.id,
    tool: `${contract.key}@${contract.version}`,
    idempotencyKey: key,
    argumentsSha256: proposal.argumentsSha256,
  });
  const target = lockTarget(proposal);
  const holder = `${operation.id}:${randomBytes(6).toString("hex")}`;
  const ttlMs = 2 * contract.timeout_ms + 30_000;
  const turn = await waitForTurn(
    target,
    holder,
    ttlMs,
    key,
    Math.min(call.runDeadline.getTime(), Date.now() + LOCK_WAIT_CAP_MS),
  ).catch((error: unknown) => {
    // The lock's store (Redis, or the database) is away for a moment: nothing was sent, so asking again is
    // safe — said as such, rather than as a final failure that would leave an interrupted commit unsettled.
    if (error instanceof ToolError) throw error;
    throw new ToolError(
      "RATE_LIMITED",
      "The write lock could not be taken just now: nothing was sent; retry shortly.",
      {
        retryable: true,
        retry_after_ms: 1_000,
        proposal_id: proposal.id,
      },
    );
  });
  if (turn === null)
    throw new ToolError("RATE_LIMITED", "Another write to the same record is in flight; retry shortly.", {
      retryable: true,
      retry_after_ms: 1_000,
      proposal_id: proposal.id,
    });
  if (turn !== "locked") return answerFrom(turn, proposal);
  try {
    return await commitUnderLock(call, proposal.id, key);
  } finally {
    await releaseWriteLock(target, holder);
  }
}

async function commitUnderLock(call: WriteCall, proposalId: string, key: string): Promise<WriteOutcome> {
  const { run, contract } = call;
  const proposal = await loadProposalForCommit(run.id, run.organizationId, proposalId, contract);
  let operation = await findOperationByKey(key);
  if (!operation)
    throw new ToolError("CANCELLED", "The operation disappeared before it was sent.", { proposal_id: proposalId });
  const trail: OutcomeTrail[] = [];
  if (operation.status === "running") {
    // An earlier attempt sent the write and died before hearing back: never send it twice, ask.
    trail.push({ at: stamp(), step: "commit", outcome: "an earlier attempt was interrupted after sending the write" });
    return settleAmbiguous(call, operation, proposal, trail);
  }
  if (operation.status !== "queued" || !(await claimOperation(operation.id))) {
    return answerFrom((await findOperationByKey(key)) ?? operation, proposal);
  }
  try {
    await assertCommittable(proposal);
    await assertRunKeepsItsAgent(proposal);
  } catch (error) {
    // The proposal (or its run's agent) changed while the operation waited its turn: nothing is sent.
    await recordFailure(operation, storedError(asToolError(error)));
    throw error;
  }
  const args = {
    ...(proposal.arguments as Record<string, unknown>),
    ...(contract.idempotency ? { [contract.idempotency.key_field]: key } : {}),
  };
  let result: unknown;
  try {
    result = (await executeUnderContract(contract, call.executor, args, call.context, call.runDeadline)).result;
  } catch (error) {
    const failure = error instanceof ExecutionFailure ? error.error : asToolError(error);
    if (DEFINITIVE.includes(failure.code)) {
      const sent = operation;
      operation = await recorded(() => recordFailure(sent, storedError(failure)));
      throw new ToolError(failure.code, failure.message, {
        field: failure.field,
        proposal_id: proposal.id,
        ...(failure.upstreamCode !== undefined ? { upstream_code: failure.upstreamCode } : {}),
      });
    }
    trail.push({ at: stamp(), step: "commit", outcome: `${failure.code}: ${failure.message}` });
    return settleAmbiguous(call, operation, proposal, trail);
  }
  const broken = checkAgainst(contract.output_schema, result, contract.kind === "mcp" ? "lenient" : "strict");
  if (broken) {
    // A success without valid evidence is not a success: the write may or may not be what the body claims.
    // The dispatcher never sees this body, so the output error is counted here, once per write sent.
    await recorded(() =>
      countTelemetry(run.organizationId, [
        { metric: "output_error", tool: contract.key, version: contract.version, code: "INVALID_OUTPUT" },
      ]),
    );
    trail.push({
      at: stamp(),
      step: "commit",
      outcome: `the service answered a success whose body breaks the output schema (rule ${broken.schemaPath})`,
    });
    return settleAmbiguous(call, operation, proposal, trail);
  }
  if (contract.long_running) {
    // Accepted, still running (its output schema says so): answered at once; the agent polls get_operation.
    const accepted = await recorded(() => recordSuccess(operation, result, new Date(), "accepted"));
    return success(accepted, proposal, { status: "running" });
  }
  return success(await recorded(() => recordSuccess(operation, result)), proposal);
}

/** Steps 2–4 of the fixed sequence: the recorded success, the recorded failure, or unknown and suspended. */
async function settleAmbiguous(
  call: WriteCall,
  operation: OperationRow,
  proposal: ProposalRow,
  trail: OutcomeTrail[],
): Promise<WriteOutcome> {
  const reading = await recorded(() =>
    askStatus({
      organizationId: call.run.organizationId,
      contract: call.contract,
      idempotencyKey: operation.idempotencyKey,
      context: call.context,
    }),
  );
  const settled = await settleByStatus(operation, reading, trail, {
    longRunning: call.contract.long_running !== undefined,
    record: recorded,
  });
  if ("error" in settled) throw settled.error;
  return success(settled.operation, proposal, {
    recovered_by: "status",
    ...(settled.kind === "accepted" ? { status: "running" } : {}),
  });
}
