import "server-only";
import { createHash } from "node:crypto";
import { mcpToolKey } from "@/lib/catalog/service";
import { db, isUniqueViolation, Prisma, type DbOrTx } from "@/lib/db";
import { canonicalJson, plainJson } from "@/lib/canonical";
import { mcpToolTimeoutMs } from "@/lib/mcp/schemas";
import { declaredView } from "./result-view";
import { StoredContract } from "./schemas";
import { withGuichetBounds } from "./bounds";
import { assertCompiles, closeObjects } from "./schema";
import type { Contract, JsonSchema, LongRunning } from "./types";

// Contracts of MCP tools come from what a person reviewed, never from what the
// server says now: a re-sync that changes a schema leaves the published
// versions alone, and only the next review publishes a new one.
//
// The server's schemas are taken as reviewed, with three changes: open objects
// of the input schema are closed (an invented field is refused, not forwarded),
// every input field without a bound its type allows gets Guichet's (lib/contracts/
// bounds.ts, shown to the reviewer), and a tool without an output schema
// answers one bounded `text` field. The
// operational fields are derived from the reviewed state: the effect is the
// reviewer's `writes_data`; a write with an `idempotency_key` field retries as
// `idempotent`, with the server's status tool; `commit_x` pairs with
// `preview_x`; `expected_version` makes the target's version pointer; a
// long write with a cancel tool declares `cancel_tool` cancellation.

export const TEXT_OUTPUT_SCHEMA: JsonSchema = {
  type: "object",
  properties: { text: { type: "string", maxLength: 20_000 } },
  required: ["text"],
  additionalProperties: false,
};

export interface ReviewedMcpTool {
  name: string;
  description: string;
  inputSchema: JsonSchema;
  outputSchema: JsonSchema | null;
  writesData: boolean;
  /** The reviewer's timeout for this tool; null (or absent) follows the effect. */
  timeoutMs?: number | null;
}

export class ContractPublishError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "ContractPublishError";
  }
}

function withoutDialect(schema: JsonSchema): JsonSchema {
  // MCP's default dialect is 2020-12; an older `$schema` would make the validator look for another meta-schema.
  const { $schema: _dialect, ...rest } = schema;
  return rest;
}

function propertiesOf(schema: JsonSchema): Record<string, unknown> {
  const properties = schema.properties;
  return properties && typeof properties === "object" ? (properties as Record<string, unknown>) : {};
}

function requiredOf(schema: JsonSchema): string[] {
  return Array.isArray(schema.required) ? schema.required.filter((r): r is string => typeof r === "string") : [];
}

/**
 * A write whose answer says `status: "running"` (a const) with a job id, when
 * the server has a read tool taking exactly that id whose name says status:
 * the service accepts the write at once and finishes it later. A sibling write
 * named for cancelling that takes the id cancels it.
 */
function longRunningOf(serverId: number, output: JsonSchema, siblings: ReviewedMcpTool[]): LongRunning | null {
  const props = propertiesOf(output);
  const status = props.status as { const?: unknown } | undefined;
  if (status?.const !== "running") return null;
  for (const field of Object.keys(props).filter((name) => /_id$/.test(name))) {
    const reader = siblings.find(
      (s) => !s.writesData && /status/.test(s.name) && requiredOf(s.inputSchema).join() === field,
    );
    if (!reader) continue;
    const canceller = siblings.find(
      (s) => s.writesData && /cancel/.test(s.name) && requiredOf(s.inputSchema).includes(field),
    );
    return {
      id_field: field,
      status_tool: mcpToolKey(serverId, reader.name),
      cancel_tool: canceller ? mcpToolKey(serverId, canceller.name) : null,
    };
  }
  return null;
}

/** The input schema an MCP tool's contract publishes, and the bounds Guichet added to it. */
export function boundedMcpInput(inputSchema: JsonSchema): ReturnType<typeof withGuichetBounds> {
  return withGuichetBounds(closeObjects(withoutDialect(inputSchema)) as JsonSchema);
}

/** The contract (without its version number) a reviewed MCP tool gets. */
export function deriveMcpContract(
  serverId: number,
  tool: ReviewedMcpTool,
  siblings: ReviewedMcpTool[],
): Omit<Contract, "version"> {
  const input = boundedMcpInput(tool.inputSchema).schema;
  const output = tool.outputSchema ? withoutDialect(tool.outputSchema) : TEXT_OUTPUT_SCHEMA;
  const props = propertiesOf(input);
  const write = tool.writesData;
  const idempotency = "idempotency_key" in props ? { key_field: "idempotency_key" } : null;
  const sibling = (name: string) => siblings.find((s) => s.name === name);
  const previewName = tool.name.startsWith("commit_") ? `preview_${tool.name.slice("commit_".length)}` : null;
  const preview =
    write && previewName && sibling(previewName) && !sibling(previewName)!.writesData
      ? mcpToolKey(serverId, previewName)
      : null;
  const statusTool =
    write && idempotency
      ? siblings.find(
          (s) => !s.writesData && /status/.test(s.name) && requiredOf(s.inputSchema).join() === "idempotency_key",
        )
      : undefined;
  const idField = write ? requiredOf(input).find((name) => /_id$/.test(name) && name !== "idempotency_key") : undefined;
  const longRunning = write ? longRunningOf(serverId, output, siblings) : null;
  return {
    key: mcpToolKey(serverId, tool.name),
    kind: "mcp",
    input_schema: input,
    output_schema: output,
    effect: write ? "write" : "read",
    retry: write ? (idempotency ? "idempotent" : "never") : "safe",
    idempotency: write ? idempotency : null,
    preview,
    target: idField
      ? {
          type: idField.replace(/_id$/, ""),
          id_pointer: `/${idField}`,
          version_pointer: "expected_version" in props ? "/expected_version" : null,
        }
      : null,
    status_tool: statusTool ? mcpToolKey(serverId, statusTool.name) : null,
    timeout_ms: mcpToolTimeoutMs({ writesData: write, timeoutMs: tool.timeoutMs ?? null }),
    max_argument_bytes: 32_768,
    result_view: declaredView(output),
    // A read stops with its run; a write, once sent, is the service's — unless it is a job the service can be asked to stop.
    cancellation: !write ? "abort" : longRunning?.cancel_tool ? "cancel_tool" : "not_interruptible",
    mcp: { server_id: serverId, tool: tool.name },
    ...(longRunning ? { long_running: longRunning } : {}),
  };
}

/** Fingerprint of a contract's content, version number excluded: equal content is the same version. */
export function contentFingerprint(contract: Omit<Contract, "version"> | Contract): string {
  const { version: _version, ...content } = contract as Contract;
  return createHash("sha256")
    .update(canonicalJson(plainJson(content)))
    .digest("hex");
}

interface StoredTool {
  name: string;
  description: string;
  inputSchema: unknown;
  outputSchema: unknown;
  writesData: boolean;
  timeoutMs: number | null;
  fingerprint: string;
  reviewedFingerprint: string | null;
  reviewedSnapshot: unknown;
  removedAt: Date | null;
}

/** What the reviewer saw: the snapshot taken at review, or the current state when it is the reviewed one. */
export function reviewedState(tool: StoredTool): ReviewedMcpTool | null {
  if (tool.reviewedFingerprint === null || tool.removedAt !== null) return null;
  // The connectors' review stores {description, input_schema, output_schema}.
  const snapshot = tool.reviewedSnapshot as {
    description?: unknown;
    input_schema?: unknown;
    output_schema?: unknown;
  } | null;
  if (snapshot && typeof snapshot === "object" && snapshot.input_schema && typeof snapshot.input_schema === "object") {
    return {
      name: tool.name,
      description: typeof snapshot.description === "string" ? snapshot.description : tool.description,
      inputSchema: snapshot.input_schema as JsonSchema,
      outputSchema:
        snapshot.output_schema && typeof snapshot.output_schema === "object"
          ? (snapshot.output_schema as JsonSchema)
          : null,
      writesData: tool.writesData,
      timeoutMs: tool.timeoutMs,
    };
  }
  if (tool.fingerprint !== tool.reviewedFingerprint) return null;
  return {
    name: tool.name,
    description: tool.description,
    inputSchema: tool.inputSchema as JsonSchema,
    outputSchema: (tool.outputSchema as JsonSchema | null) ?? null,
    writesData: tool.writesData,
    timeoutMs: tool.timeoutMs,
  };
}

/**
 * Publishes the contract of a reviewed MCP tool, for the review step of the
 * connectors to call inside its transaction. Returns the version now current:
 * the existing one when the reviewed content did not change, a new version
 * otherwise; null when the tool has no reviewed state (new, or changed and not
 * reviewed again) or was removed from the server.
 */
export async function publishMcpContract(
  tx: DbOrTx,
  tool: { serverId: number; name: string },
): Promise<Contract | null> {
  const server = await tx.mcpServer.findUnique({
    where: { id: tool.serverId },
    select: {
      id: true,
      organizationId: true,
      tools: {
        select: {
          name: true,
          description: true,
          inputSchema: true,
          outputSchema: true,
          writesData: true,
          timeoutMs: true,
          fingerprint: true,
          reviewedFingerprint: true,
          reviewedSnapshot: true,
          removedAt: true,
        },
      },
    },
  });
  const row = server?.tools.find((t) => t.name === tool.name);
  if (!server || !row) return null;
  const reviewed = reviewedState(row);
  if (!reviewed) return null;
  const siblings = server.tools.flatMap((t) => reviewedState(t) ?? []);
  const derived = deriveMcpContract(server.id, reviewed, siblings);
  try {
    assertCompiles(derived.input_schema, "lenient");
    assertCompiles(derived.output_schema, "lenient");
  } catch (error) {
    throw new ContractPublishError(`The schemas of ${reviewed.name} do not compile: ${(error as Error).message}`);
  }
  return storeVersion(tx, server.organizationId, derived);
}

async function storeVersion(
  tx: DbOrTx,
  organizationId: string,
  derived: Omit<Contract, "version">,
  attempt = 0,
): Promise<Contract> {
  const latest = await tx.toolContract.findFirst({
    where: { organizationId, key: derived.key },
    orderBy: { version: "desc" },
  });
  const latestContract = latest ? StoredContract.parse(latest.contract) : null;
  if (latestContract && contentFingerprint(latestContract) === contentFingerprint(derived)) return latestContract;
  const contract: Contract = { ...derived, version: (latest?.version ?? 0) + 1 };
  try {
    await tx.toolContract.create({
      data: {
        organizationId,
        key: contract.key,
        version: contract.version,
        contract: contract as unknown as Prisma.InputJsonObject,
      },
    });
  } catch (error) {
    // Two reviews publishing at once: the loser compares with the winner's version.
    if (isUniqueViolation(error) && attempt < 3 && tx === db)
      return storeVersion(tx, organizationId, derived, attempt + 1);
    throw error;
  }
  return contract;
}
