import "server-only";
import { z } from "zod";
import { checkAgainst } from "@/lib/contracts/schema";
import { getToolContract } from "@/lib/contracts/service";
import type { Contract } from "@/lib/contracts/types";
import { db, Prisma } from "@/lib/db";
import { env } from "@/lib/env";
import { executorFor, searchSettings } from "@/lib/dispatch/availability";
import { privateOriginsFor } from "@/lib/net/origin-grants";
import { ExecutionFailure, executeUnderContract } from "@/lib/dispatch/execution";
import { asToolError, ToolError, type ExecutionContext } from "@/lib/executors";
import type { OperationView } from "@/lib/executors/operations/tools";
import { log } from "@/lib/log";
import { asStatus, getOperation, type OperationRow } from "./service";

// Long operations: a write the service accepted at once and finishes later is
// stored `accepted`. Reading it (get_operation, GET /v1/operations/{id}, or the
// operations API when it cancels) asks the service's job status tool on Guichet's own account; a final
// state settles the operation with the job's answer as its outcome. Guichet
// never infers an end from the time that passed.

const FOLLOW_DEADLINE_MS = 15_000;

const JobAnswer = z.object({ status: z.enum(["running", "succeeded", "failed", "cancelled"]) }).passthrough();

function splitTool(tool: string): { key: string; version: number } {
  const at = tool.lastIndexOf("@");
  return { key: tool.slice(0, at), version: Number(tool.slice(at + 1)) };
}

/** The contract of the write an operation sent, at the version it was sent under. */
export async function contractOf(operation: OperationRow): Promise<Contract> {
  const { key, version } = splitTool(operation.tool);
  return getToolContract(operation.organizationId, key, version);
}

/** Runs one of the long operation's tools (its job status, its cancel) with Guichet's own deadline. */
async function runTool(
  organizationId: string,
  key: string,
  args: Record<string, unknown>,
  context: ExecutionContext,
): Promise<unknown> {
  const contract = await getToolContract(organizationId, key, undefined);
  const executor = await executorFor(organizationId, contract, context.run.memberId);
  const ctx = { ...context, signal: AbortSignal.timeout(FOLLOW_DEADLINE_MS) };
  let result: unknown;
  try {
    result = (await executeUnderContract(contract, executor, args, ctx, new Date(Date.now() + FOLLOW_DEADLINE_MS)))
      .result;
  } catch (error) {
    throw error instanceof ExecutionFailure ? error.error : asToolError(error);
  }
  const broken = checkAgainst(contract.output_schema, result, contract.kind === "mcp" ? "lenient" : "strict");
  if (broken)
    throw new ToolError(
      "INVALID_OUTPUT",
      `The service's answer breaks the output schema of ${key} (rule ${broken.schemaPath}).`,
    );
  return result;
}

function jobIdOf(operation: OperationRow, contract: Contract): string | null {
  const field = contract.long_running?.id_field;
  const value = field ? (operation.result as Record<string, unknown> | null)?.[field] : undefined;
  return typeof value === "string" ? value : null;
}

/** Asks the job's state once; a final one settles the operation (only from `accepted`, so two readers settle it once). */
export async function refreshOperation(operation: OperationRow, context: ExecutionContext): Promise<OperationRow> {
  if (operation.status !== "accepted") return operation;
  const contract = await contractOf(operation);
  const jobId = jobIdOf(operation, contract);
  if (!contract.long_running || !jobId) return operation;
  const answer = JobAnswer.safeParse(
    await runTool(
      operation.organizationId,
      contract.long_running.status_tool,
      { [contract.long_running.id_field]: jobId },
      context,
    ),
  );
  if (!answer.success)
    throw new ToolError(
      "INVALID_OUTPUT",
      "The job status answer does not say running, succeeded, failed or cancelled.",
    );
  const status = answer.data.status;
  if (status === "running") return operation;
  const error =
    status === "failed"
      ? { code: "UPSTREAM_ERROR", message: "The service reports the job failed.", retryable: false, field: null }
      : status === "cancelled"
        ? { code: "CANCELLED", message: "The job was cancelled at the service.", retryable: false, field: null }
        : null;
  await db.operation.updateMany({
    where: { id: operation.id, status: "accepted" },
    data: { status, outcome: answer.data as Prisma.InputJsonObject, ...(error ? { error } : {}) },
  });
  return db.operation.findUniqueOrThrow({ where: { id: operation.id } });
}

/** The agent's view of an operation: a long one still at work is `running`. */
export function operationView(operation: OperationRow): OperationView {
  const status = asStatus(operation.status);
  const error = operation.error as { code?: unknown; message?: unknown } | null;
  return {
    operation_id: operation.id,
    status: status === "accepted" ? "running" : status,
    tool: operation.tool,
    result: (operation.result as Record<string, unknown> | null) ?? null,
    outcome: (operation.outcome as Record<string, unknown> | null) ?? null,
    error: error && typeof error.code === "string" ? { code: error.code, message: String(error.message ?? "") } : null,
  };
}

/** get_operation: one operation of the run, followed at the service when it is a long one still at work. */
export async function followRunOperation(
  runId: string,
  organizationId: string,
  operationId: string,
  context: ExecutionContext,
): Promise<OperationView> {
  const operation = await db.operation.findFirst({ where: { id: operationId, runId, organizationId } });
  if (!operation)
    throw new ToolError("INVALID_ARGUMENTS", "This run has no operation with that id.", { field: "/operation_id" });
  return operationView(await refreshOperation(operation, context));
}

/**
 * GET /v1/operations/{id}: the operation, followed at the service like
 * get_operation does when it is a long one still at work. A service that cannot
 * answer leaves the stored state as it is: the reader sees it still running.
 */
export async function readOperation(organizationId: string, id: string): Promise<OperationRow> {
  const operation = await getOperation(organizationId, id);
  try {
    return await refreshOperation(operation, await serviceContext(operation));
  } catch (error) {
    log("warn", "operation.follow_failed", { operation: id, code: asToolError(error).code });
    return operation;
  }
}

/** The context Guichet calls a long operation's tools with when no tool call is under way (the operations API). */
export async function serviceContext(operation: OperationRow): Promise<ExecutionContext> {
  const privateOrigins = await privateOriginsFor(operation.organizationId);
  // A run that acts for a member follows its operations with that member's credential.
  const run = await db.run.findFirst({
    where: { id: operation.runId, organizationId: operation.organizationId },
    select: { memberId: true },
  });
  return {
    signal: AbortSignal.timeout(FOLLOW_DEADLINE_MS),
    run: {
      organizationId: operation.organizationId,
      runId: operation.runId,
      agentId: "",
      fileIds: [],
      memberId: run?.memberId ?? null,
    },
    dataDir: env.dataDir,
    web: {},
    search: searchSettings(privateOrigins),
    privateOrigins,
  };
}

/**
 * Cancels a long operation as its contract declares. Only a `cancel_tool`
 * contract is cancelled at the service, with its cancel tool (under a key of
 * Guichet's own), then the job's state is read: cancelled is `stopped`, another
 * final state `already_finished`, still running `not_interruptible`. Any other
 * declaration is `not_interruptible` and nothing is called.
 */
export async function cancelLongOperation(
  operation: OperationRow,
  context: ExecutionContext,
): Promise<{ operation: OperationRow; outcome: "stopped" | "already_finished" | "not_interruptible" }> {
  const contract = await contractOf(operation);
  const jobId = jobIdOf(operation, contract);
  const cancel = contract.cancellation === "cancel_tool" ? contract.long_running?.cancel_tool : null;
  if (!contract.long_running || !jobId || !cancel) return { operation, outcome: "not_interruptible" };
  const cancelContract = await getToolContract(operation.organizationId, cancel, undefined);
  const keyField = cancelContract.idempotency?.key_field;
  await runTool(
    operation.organizationId,
    cancel,
    {
      [contract.long_running.id_field]: jobId,
      ...(keyField ? { [keyField]: `${operation.idempotencyKey}:cancel` } : {}),
    },
    context,
  );
  const settled = await refreshOperation(operation, context);
  const status = asStatus(settled.status);
  return {
    operation: settled,
    outcome: status === "cancelled" ? "stopped" : status === "accepted" ? "not_interruptible" : "already_finished",
  };
}
