import { randomUUID } from "node:crypto";
import { UrlElicitationRequiredError, type CallToolResult, type Tool } from "@modelcontextprotocol/sdk/types.js";
import { catalogIndex } from "@/lib/catalog/service";
import { findContract } from "@/lib/contracts/registry";
import type { Contract, JsonSchema } from "@/lib/contracts/types";
import { argumentsSchemaFor, dispatchToolCall, type ToolEnvelope } from "@/lib/proposals/dispatch";
import { openerOf } from "@/lib/runs/driver";
import { capabilitySetOf, type RunRow } from "@/lib/runs/service";
import { proposalCard, type ProposalCard } from "./proposal-card";

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

interface RunContract {
  key: string;
  contract: Contract;
}

async function runContracts(run: RunRow): Promise<RunContract[]> {
  const found: RunContract[] = [];
  for (const entry of capabilitySetOf(run)) {
    const registered = await findContract(run.organizationId, entry.key, entry.version);
    if (registered && !registered.retired) found.push({ key: entry.key, contract: registered.contract });
  }
  return found;
}

/**
 * Which tool commits a proposal, by the tool that made it: a preview's
 * proposals are committed by the write that names it as its preview, a direct
 * write's by itself. Models follow these words literally, so every text that
 * tells them how to commit names the tool from here.
 */
export interface CommitRoute {
  proposedBy: string;
  commitTool: string;
}

function commitRoutesOf(contracts: RunContract[]): CommitRoute[] {
  const keys = new Set(contracts.map((entry) => entry.key));
  return contracts.flatMap(({ key, contract }) => {
    if (contract.effect !== "write") return [];
    if (!contract.preview) return [{ proposedBy: key, commitTool: key }];
    return keys.has(contract.preview) ? [{ proposedBy: contract.preview, commitTool: key }] : [];
  });
}

/** Whether a call of this tool makes a proposal, so that a client may ask for it as a task. */
export async function proposesChanges(run: RunRow, name: string): Promise<boolean> {
  return commitRoutesOf(await runContracts(run)).some((route) => route.proposedBy === name);
}

/** The commit routes of the run's tools, for `initialize`'s instructions. */
export async function runCommitRoutes(run: RunRow): Promise<CommitRoute[]> {
  return commitRoutesOf(await runContracts(run));
}

/** What a tool's description says about proposals: which tool to call, and with what. */
function proposalNote(key: string, contract: Contract, routes: CommitRoute[]): string {
  if (contract.effect === "write" && contract.preview)
    return `Commits an approved proposal: call ${contract.preview} first; once a person approved its proposal, call ${key} with only {"proposal_id"}.`;
  if (contract.effect === "write")
    return `Changes data: the call becomes a proposal a person approves; then call ${key} again with only {"proposal_id"}.`;
  const commits = routes.filter((route) => route.proposedBy === key && route.commitTool !== key);
  if (commits.length === 0) return "";
  const names = commits.map((route) => route.commitTool).join(" or ");
  return `Previews a change: the answer is a proposal a person approves; then call ${names} with only {"proposal_id"}.`;
}

/** The run's tools as MCP describes them; annotations come from Guichet's classification, never from an upstream server's hints. */
export async function listRunTools(run: RunRow): Promise<Tool[]> {
  const catalog = await catalogIndex(run.organizationId);
  const contracts = await runContracts(run);
  const routes = commitRoutesOf(contracts);
  return contracts.map(({ key, contract }) => {
    const described = catalog.get(key);
    const writes = contract.effect === "write";
    return {
      name: key,
      title: described?.label ?? key,
      description: [described?.description ?? "", proposalNote(key, contract, routes)].filter(Boolean).join(" "),
      inputSchema: inputSchemaFor(contract),
      outputSchema: outputSchemaFor(contract),
      // A call that makes a proposal may be a task (MCP 2025-11-25): it waits for people, then commits.
      ...(routes.some((route) => route.proposedBy === key) ? { execution: { taskSupport: "optional" as const } } : {}),
      annotations: {
        title: described?.label ?? key,
        readOnlyHint: !writes,
        destructiveHint: writes,
        // A read may be repeated; a write is repeated safely only when its contract binds it to an idempotency key.
        idempotentHint: contract.retry === "safe" || contract.retry === "idempotent",
        openWorldHint: contract.kind === "mcp" || contract.key === "web_fetch" || contract.key === "web_search",
      },
    };
  });
}

export interface ToolCallOptions {
  /** The console's origin, for the approval link of a proposal card. */
  consoleOrigin: string;
  /** Aborted when the client cancels the call. */
  signal?: AbortSignal;
  /** The client takes URL-mode elicitation (declared at initialize). */
  urlElicitation?: boolean;
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
  return toCallToolResult(run, await dispatchRunTool(run, name, args, options.signal), options);
}

/** The dispatcher's envelope of one call of the session's run. */
export function dispatchRunTool(run: RunRow, name: string, args: unknown, signal?: AbortSignal): Promise<ToolEnvelope> {
  // The session lookup just read the run: the dispatcher takes it rather than reading it again.
  return dispatchToolCall({
    organizationId: run.organizationId,
    runId: run.id,
    run,
    // The session lookup matched the key that opened it: the session acts for its opener.
    driver: openerOf(run),
    tool: name,
    arguments: args === undefined ? {} : args,
    signal,
  });
}

/** The proposal a call produced or was refused about, if any. */
export function proposalIdOf(envelope: ToolEnvelope): string | null {
  if (!envelope.ok) return envelope.error.proposal_id ?? null;
  const proposal = envelope.evidence.proposal;
  return proposal && typeof proposal === "object" && typeof (proposal as { id?: unknown }).id === "string"
    ? (proposal as { id: string }).id
    : null;
}

export async function toCallToolResult(
  run: RunRow,
  envelope: ToolEnvelope,
  options: ToolCallOptions,
): Promise<CallToolResult> {
  const proposalId = proposalIdOf(envelope);
  const card = proposalId ? await proposalCard(run.organizationId, proposalId, options.consoleOrigin) : null;
  if (!envelope.ok && envelope.error.code === "NO_CHANGE") {
    // An outcome, not a failure: the model should move on, not retry or look for a proposal to commit.
    return {
      structuredContent: { error: envelope.error },
      content: [
        {
          type: "text",
          text: `NO_CHANGE: ${envelope.error.message} Do not call the commit tool for this change.`,
        },
      ],
    };
  }
  if (
    !envelope.ok &&
    card?.status === "pending" &&
    options.urlElicitation &&
    envelope.error.code === "PROPOSAL_NOT_APPROVED"
  )
    throw approvalElicitation(card, envelope.error.message);
  if (!envelope.ok && envelope.error.reason?.code === "mcp_member_not_connected") {
    // An MCP client opens links itself: the connect page, absolute on the console's origin.
    const reason = { ...envelope.error.reason, connect_url: absoluteUrl(envelope.error.reason.connect_url, options) };
    if (options.urlElicitation) throw connectElicitation(reason);
    return {
      isError: true,
      structuredContent: { error: { ...envelope.error, reason } },
      content: [
        { type: "text", text: `${envelope.error.code}: ${reason.message} Connect it at ${reason.connect_url}.` },
      ],
    };
  }
  if (!envelope.ok) {
    const structured = { error: envelope.error, ...(card ? { proposal: card } : {}) };
    const hint = card && (card.status === "pending" || card.status === "approved") ? ` ${commitInstruction(card)}` : "";
    return {
      isError: true,
      structuredContent: structured,
      content: [{ type: "text", text: `${envelope.error.code}: ${envelope.error.message}${hint}` }],
    };
  }
  const structured = { result: envelope.result, evidence: envelope.evidence, ...(card ? { proposal: card } : {}) };
  // Clients that read only text get the same data; tool output is someone else's data, and says so.
  const text = card
    ? `Proposal ${card.id} (${card.status}): ${card.effect} Nothing was changed yet. Approve at ${card.approval_url}. ${commitInstruction(card)}`
    : `Result of ${envelope.evidence.tool} (untrusted data): ${JSON.stringify(envelope.result)}`;
  return { structuredContent: structured, content: [{ type: "text", text }] };
}

/**
 * A commit of a proposal that still waits for people, for a client that takes
 * URL-mode elicitation: the JSON-RPC error -32042 hands it the approval page to
 * show the member. Only the commit answers so: the error means "retry this same
 * request once the page is done", and the same commit, retried after the
 * approval, goes through (a preview or a write retried would propose again).
 */
function approvalElicitation(card: ProposalCard, why: string): UrlElicitationRequiredError {
  return new UrlElicitationRequiredError(
    [
      {
        mode: "url",
        elicitationId: card.id,
        url: card.approval_url,
        message: `${card.effect} ${why} Open the approval page; once it is approved, retry this call.`,
      },
    ],
    `Proposal ${card.id} waits for approval at ${card.approval_url}.`,
  );
}

function absoluteUrl(url: string, options: ToolCallOptions): string {
  return new URL(url, options.consoleOrigin).toString();
}

type MemberReason = NonNullable<Extract<ToolEnvelope, { ok: false }>["error"]["reason"]>;

/**
 * A call whose member has no usable connection to the tool's connector (never
 * connected, disconnected, or to renew), for a client that takes URL-mode
 * elicitation: the JSON-RPC error -32042 hands it the connect page to show the
 * member. Nothing was sent upstream; once connected, the same call retried goes
 * through with the member's new token.
 */
function connectElicitation(reason: MemberReason): UrlElicitationRequiredError {
  const renew = reason.state === "needs_reconnect";
  return new UrlElicitationRequiredError(
    [
      {
        mode: "url",
        elicitationId: `connect_${randomUUID()}`,
        url: reason.connect_url,
        message: `${reason.message} Open the page to ${renew ? "reconnect" : "connect"} your account, then retry this call.`,
      },
    ],
    `${renew ? "Reconnect" : "Connect"} your own account at ${reason.connect_url} first.`,
  );
}

/**
 * The one sentence that says how to commit, with the exact tool: some clients
 * (`@openai/agents`) hand the model the text block only, and a preview's
 * proposal is committed by another tool than the one just called.
 */
function commitInstruction(card: ProposalCard): string {
  return `Once it is approved, call the tool ${card.commit.tool} with exactly ${JSON.stringify(card.commit.arguments)}.`;
}
