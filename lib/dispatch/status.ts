import "server-only";
import { mcpToolKey } from "@/lib/catalog/service";
import { publishMcpContract } from "@/lib/contracts/mcp";
import { latestContract } from "@/lib/contracts/registry";
import { checkAgainst } from "@/lib/contracts/schema";
import type { Contract } from "@/lib/contracts/types";
import { db } from "@/lib/db";
import { asToolError, type ExecutionContext } from "@/lib/executors";
import { executorFor } from "./availability";
import { ExecutionFailure, executeUnderContract } from "./execution";

// The dispatcher's entry point for asking a write's status tool what the
// service recorded under an idempotency key. Guichet asks on its own account:
// the status tool need not be in the run, it runs with a deadline of its own
// (not the run's signal — a cancelled run still deserves the truth about a
// write it sent), and only an answer that passes the status tool's output
// schema comes back.

const STATUS_DEADLINE_MS = 30_000;

export type StatusAnswer = { ok: true; result: unknown } | { ok: false; why: string };

/**
 * The status tool's reviewed contract, looked up alone (not through the whole
 * catalog): an MCP write's status tool is a sibling on the same server,
 * published on first use like any tool; a built-in's is its latest version.
 */
async function statusContractOf(organizationId: string, contract: Contract): Promise<Contract | null> {
  const key = contract.status_tool!;
  const prefix = contract.kind === "mcp" && contract.mcp ? mcpToolKey(contract.mcp.server_id, "") : null;
  if (contract.mcp && prefix && key.startsWith(prefix))
    return publishMcpContract(db, { serverId: contract.mcp.server_id, name: key.slice(prefix.length) });
  return latestContract(organizationId, key);
}

export async function askStatusTool(input: {
  organizationId: string;
  contract: Contract;
  idempotencyKey: string;
  context: ExecutionContext;
}): Promise<StatusAnswer> {
  const { contract } = input;
  if (!contract.status_tool || !contract.idempotency) return { ok: false, why: "the tool has no status tool to ask" };
  let statusContract: Contract | null;
  try {
    statusContract = await statusContractOf(input.organizationId, contract);
  } catch {
    statusContract = null;
  }
  if (!statusContract) return { ok: false, why: "the status tool has no reviewed contract" };
  let result: unknown;
  try {
    // The run's member when it acts for one: the status is asked with the credential that wrote.
    const executor = await executorFor(input.organizationId, statusContract, input.context.run.memberId);
    const context = { ...input.context, signal: AbortSignal.timeout(STATUS_DEADLINE_MS) };
    const deadline = new Date(Date.now() + STATUS_DEADLINE_MS);
    result = (
      await executeUnderContract(
        statusContract,
        executor,
        { [contract.idempotency.key_field]: input.idempotencyKey },
        context,
        deadline,
      )
    ).result;
  } catch (error) {
    const failure = error instanceof ExecutionFailure ? error.error : asToolError(error);
    return { ok: false, why: `the status tool failed (${failure.code}: ${failure.message})` };
  }
  const broken = checkAgainst(
    statusContract.output_schema,
    result,
    statusContract.kind === "mcp" ? "lenient" : "strict",
  );
  if (broken) return { ok: false, why: `the status answer breaks its output schema (rule ${broken.schemaPath})` };
  return { ok: true, result };
}
