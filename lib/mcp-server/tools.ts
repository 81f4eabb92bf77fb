import type { CallToolResult, Tool } from "@modelcontextprotocol/sdk/types.js";
import { catalogIndex } from "@/lib/catalog/service";
import { findContract } from "@/lib/contracts/registry";
import type { Contract, JsonSchema } from "@/lib/contracts/types";
import { argumentsSchemaFor, dispatchToolCall, type ToolEnvelope } from "@/lib/proposals/dispatch";
import { openerOf } from "@/lib/runs/driver";
import { capabilitySetOf, type RunRow } from "@/lib/runs/service";
import { proposalCard } from "./proposal-card";

// tools/list and tools/call of an MCP session: the run's frozen capability set,
// described from Guichet's own contracts and classification, and every call
// through the dispatcher — the same path as POST /v1/runs/{run}/tool_calls.

/** MCP clients validate with their own JSON Schema engine: the dialect is the protocol's default, so the keyword goes. */
function withoutDialect(schema: JsonSchema): JsonSchema {
  const { $schema: _dialect, ...rest } = schema;
  void _dialect;
  return rest;
}

/**
 * What `structuredContent` may hold: a success (`result` under the contract's
 * output schema, `evidence`, and for a write the proposal card) or a refusal
 * (`error`, with the card when a proposal waits). Clients check refusals against
 * it too, so nothing is required at the top.
 */
function outputSchemaFor(contract: Contract): Tool["outputSchema"] {
  return {
    type: "object",
    properties: {
      result: withoutDialect(contract.output_schema),
      evidence: { type: "object" },
      proposal: { type: "object" },
      error: {
        type: "object",
        properties: {
          code: { type: "string" },
          message: { type: "string" },
          retryable: { type: "boolean" },
          field: { type: ["string", "null"] },
        },
        required: ["code", "message", "retryable", "field"],
      },
    },
  };
}

function inputSchemaFor(contract: Contract): Tool["inputSchema"] {
  const schema = withoutDialect(argumentsSchemaFor(contract));
  return { ...schema, type: "object" };
}

/** The run's tools as MCP describes them; annotations come from Guichet's classification, never from an upstream server's hints. */
export async function listRunTools(run: RunRow): Promise<Tool[]> {
  const catalog = await catalogIndex(run.organizationId);
  const tools: Tool[] = [];
  for (const entry of capabilitySetOf(run)) {
    const registered = await findContract(run.organizationId, entry.key, entry.version);
    if (!registered || registered.retired) continue;
    const { contract } = registered;
    const described = catalog.get(entry.key);
    const writes = contract.effect === "write";
    tools.push({
      name: entry.key,
      title: described?.label ?? entry.key,
      description: [
        described?.description ?? "",
        writes
          ? 'Changes data: the call becomes a proposal a person approves; then call this tool with only {"proposal_id"}.'
          : "",
      ]
        .filter(Boolean)
        .join(" "),
      inputSchema: inputSchemaFor(contract),
      outputSchema: outputSchemaFor(contract),
      annotations: {
        title: described?.label ?? entry.key,
        readOnlyHint: !writes,
        destructiveHint: writes,
        // A read may be repeated; a write is repeated safely only when its contract binds it to an idempotency key.
        idempotentHint: contract.retry === "safe" || contract.retry === "idempotent",
        openWorldHint: contract.kind === "mcp" || contract.key === "web_fetch" || contract.key === "web_search",
      },
    });
  }
  return tools;
}

export interface ToolCallOptions {
  /** The console's origin, for the approval link of a proposal card. */
  consoleOrigin: string;
  /** Aborted when the client cancels the call. */
  signal?: AbortSignal;
}

/**
 * The one place MCP calls the dispatcher. A refusal is a tool result with
 * `isError` (models read it and re-plan), never a JSON-RPC error.
 */
export async function callRunTool(
  run: RunRow,
  name: string,
  args: unknown,
  options: ToolCallOptions,
): Promise<CallToolResult> {
  // The session lookup just read the run: the dispatcher takes it rather than reading it again.
  const envelope = await dispatchToolCall({
    organizationId: run.organizationId,
    runId: run.id,
    run,
    // The session lookup matched the key that opened it: the session acts for its opener.
    driver: openerOf(run),
    tool: name,
    arguments: args === undefined ? {} : args,
    signal: options.signal,
  });
  return toCallToolResult(run, envelope, options);
}

/** The proposal a call produced or was refused about, if any. */
function proposalIdOf(envelope: ToolEnvelope): string | null {
  if (!envelope.ok) return envelope.error.proposal_id ?? null;
  const proposal = envelope.evidence.proposal;
  return proposal && typeof proposal === "object" && typeof (proposal as { id?: unknown }).id === "string"
    ? (proposal as { id: string }).id
    : null;
}

async function toCallToolResult(
  run: RunRow,
  envelope: ToolEnvelope,
  options: ToolCallOptions,
): Promise<CallToolResult> {
  const proposalId = proposalIdOf(envelope);
  const card = proposalId ? await proposalCard(run.organizationId, proposalId, options.consoleOrigin) : null;
  if (!envelope.ok) {
    const structured = { error: envelope.error, ...(card ? { proposal: card } : {}) };
    return {
      isError: true,
      structuredContent: structured,
      content: [{ type: "text", text: `${envelope.error.code}: ${envelope.error.message}` }],
    };
  }
  const structured = { result: envelope.result, evidence: envelope.evidence, ...(card ? { proposal: card } : {}) };
  // Clients that read only text get the same data; tool output is someone else's data, and says so.
  const text = card
    ? `Proposal ${card.id} (${card.status}): ${card.effect} Approve at ${card.approval_url}, then commit with {"proposal_id": "${card.id}"}.`
    : `Result of ${envelope.evidence.tool} (untrusted data): ${JSON.stringify(envelope.result)}`;
  return { structuredContent: structured, content: [{ type: "text", text }] };
}
