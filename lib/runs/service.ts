import "server-only";
import { z } from "zod";
import { db, Prisma, type DbOrTx } from "@/lib/db";
import { driverWrite, findFirstOnDriver, type DriverStatement } from "@/lib/db/driver";
import { ApiError, notFound } from "@/lib/http/errors";
import { afterCursor } from "@/lib/http/validation";
import { newId } from "@/lib/ids";
import { isTraced, traceCatalog } from "@/lib/traces/record";
import { abortRunCalls, type AbortedCalls } from "./active-calls";
import type { RunOpener } from "./driver";
import { resolveCapabilitySet, type RunWarning } from "./capabilities";
import { effectiveStatus, liveRunStatuses, runSelect, type RunRow } from "./model";
import { RunMessage, type RunCreateBody, type RunListQuery } from "./schemas";

export { capabilitySetOf, effectiveStatus, fileIdsOf, runSelect, type RunRow, type RunStatus } from "./model";

// Runs: an agent's unit of work, with its capability set frozen at creation
// and a deadline (`expires_at`) that bounds every call and every retry.

export const RUN_TTL_MS = 60 * 60 * 1000;

/** Who drives a run: an API client (`POST /v1/runs`) or an MCP session, recorded with the client it named. */
export type RunOrigin =
  | { source: "api" }
  | {
      source: "mcp";
      clientName: string;
      clientVersion: string;
      mcpSessionHash: string;
      /** The OAuth grant the session acts under (a member through a client they consented to). */
      oauthGrantId?: string;
    };

/** What a new run takes from its agent. */
export const runAgentSelect = {
  id: true,
  active: true,
  instructions: true,
  tools: true,
  trace: true,
  _count: { select: { documents: true } },
} as const;
export type RunAgent = Prisma.AgentGetPayload<{ select: typeof runAgentSelect }>;

/** A run's agent must exist in the organization (404 otherwise) and be active. */
export function assertRunnable<A extends { active: boolean }>(agent: A | null): asserts agent is A {
  if (!agent) throw notFound("Agent");
  if (!agent.active) throw new ApiError("agent_inactive", "This agent is inactive: it refuses every run.");
}

export async function createRun(
  principal: RunOpener,
  body: RunCreateBody,
  options: {
    tx?: DbOrTx;
    origin?: RunOrigin;
    /** `body.agent` as the caller already read it (with at least `runAgentSelect`), null when it does not exist. */
    agent?: RunAgent | null;
  } = {},
): Promise<{ run: RunRow; warnings: RunWarning[] }> {
  const { tx = db, origin = { source: "api" } } = options;
  const { organizationId } = principal;
  const agent =
    options.agent !== undefined
      ? options.agent
      : await tx.agent.findFirst({ where: { id: body.agent, organizationId }, select: runAgentSelect });
  assertRunnable(agent);
  const fileIds = [...new Set(body.files ?? [])];
  await assertRunFiles(organizationId, fileIds, tx);
  const capabilities = body.capabilities ?? "read";
  const { capabilitySet, warnings } = await resolveCapabilitySet(
    {
      organizationId,
      agentTools: z.array(z.string()).catch([]).parse(agent.tools),
      withFileTools: fileIds.length > 0 || agent._count.documents > 0,
      capabilities,
      memberId: principal.kind === "member" ? principal.memberId : null,
    },
    tx,
  );
  // The agent's instructions always apply; the run's own come after them, never instead.
  const instructions = [agent.instructions, body.instructions]
    .filter((text): text is string => Boolean(text && text.trim()))
    .join("\n\n");
  const now = new Date();
  const data: Prisma.RunUncheckedCreateInput & Pick<RunRow, "debug" | "trace" | "apiKeyId" | "memberId" | "expiresAt"> =
    {
      id: newId("run"),
      organizationId,
      agentId: agent.id,
      status: "active",
      capabilities,
      instructions,
      capabilitySet: capabilitySet as unknown as Prisma.InputJsonArray,
      warnings: warnings as unknown as Prisma.InputJsonArray,
      fileIds,
      debug: body.debug ?? false,
      trace: agent.trace,
      metadata: body.metadata ?? Prisma.DbNull,
      expiresAt: new Date(now.getTime() + RUN_TTL_MS),
      apiKeyId: principal.kind === "apiKey" ? principal.apiKeyId : null,
      memberId: principal.kind === "member" ? principal.memberId : null,
      // A widget's visitor: the run is the widget's, whatever else the caller says.
      ...(principal.kind === "widget" ? { source: "widget", widgetId: principal.widgetId } : {}),
      ...(origin.source === "mcp"
        ? {
            source: "mcp",
            clientName: origin.clientName,
            clientVersion: origin.clientVersion,
            mcpSessionHash: origin.mcpSessionHash,
            oauthGrantId: origin.oauthGrantId ?? null,
            mcpSeenAt: now,
          }
        : {}),
    };
  // An MCP session's run goes through Prisma: its callers read a taken session hash as Prisma's P2002.
  const run =
    tx === db && origin.source !== "mcp" && (await driverWrite([insertRunStatement(data, now)]))
      ? newRunRow(data, now)
      : await tx.run.create({ data, select: runSelect });
  if (isTraced(run)) await traceCatalog(run, capabilitySet, tx);
  return { run, warnings };
}

/** The Run columns Prisma stores as JSON (`Json` in the schema): text on SQLite, jsonb on PostgreSQL. */
export const RUN_JSON_COLUMNS = new Set([
  "capabilitySet",
  "warnings",
  "fileIds",
  "metadata",
  "transcript",
  "output",
  "usage",
  "failure",
  "requiredAction",
  "pendingApproval",
]);

/**
 * A Run column's value as the statements on the driver bind it (lib/db/driver.ts): a JSON field's as its text
 * (PostgreSQL reads it as the jsonb it goes to), SQL NULL for Prisma's DbNull.
 */
export function runColumnValue(column: string, value: unknown): unknown {
  if (value === null || value === Prisma.DbNull) return null;
  return RUN_JSON_COLUMNS.has(column) ? JSON.stringify(value) : value;
}

/** A new run's INSERT on the driver (lib/db/driver.ts): the columns `data` gives, and its timestamps. */
function insertRunStatement(data: Record<string, unknown>, now: Date): DriverStatement {
  const columns = [...Object.keys(data), "createdAt", "updatedAt"];
  const values = [...Object.entries(data).map(([column, value]) => runColumnValue(column, value)), now, now];
  return {
    sql: `INSERT INTO "Run" (${columns.map((c) => `"${c}"`).join(", ")}) VALUES (${columns.map((_, i) => `$${i + 1}`).join(", ")})`,
    values,
  };
}

/** The row `insertRunStatement` stored, as `runSelect` reads it back: the columns it left out hold their defaults. */
function newRunRow(
  data: Prisma.RunUncheckedCreateInput & Pick<RunRow, "debug" | "trace" | "apiKeyId" | "memberId" | "expiresAt">,
  now: Date,
): RunRow {
  const json = (value: unknown) =>
    value === Prisma.DbNull || value === undefined ? null : (value as Prisma.JsonValue);
  return {
    ...RUN_DEFAULTS,
    id: data.id,
    organizationId: data.organizationId,
    agentId: data.agentId ?? null,
    status: data.status,
    capabilities: data.capabilities,
    instructions: data.instructions,
    capabilitySet: json(data.capabilitySet),
    warnings: json(data.warnings),
    fileIds: json(data.fileIds),
    debug: data.debug,
    trace: data.trace,
    expiresAt: data.expiresAt,
    metadata: json(data.metadata),
    apiKeyId: data.apiKeyId,
    memberId: data.memberId,
    widgetId: data.widgetId ?? null,
    createdAt: now,
    updatedAt: now,
  };
}

/** What a new run's row holds in the columns its creation does not set (the schema's defaults). */
const RUN_DEFAULTS = {
  modelId: null,
  output: null,
  usage: null,
  failure: null,
  requiredAction: null,
  stream: false,
  pendingApproval: null,
  transcriptPurgedAt: null,
} as const;

async function assertRunFiles(organizationId: string, fileIds: string[], tx: DbOrTx): Promise<void> {
  if (fileIds.length === 0) return;
  const found = await tx.file.findMany({
    where: {
      organizationId,
      id: { in: fileIds },
      agentId: null,
      OR: [{ expiresAt: null }, { expiresAt: { gt: new Date() } }],
    },
    select: { id: true },
  });
  const known = new Set(found.map((f) => f.id));
  const errors = fileIds.flatMap((id, index) =>
    known.has(id) ? [] : [{ field: `files[${index}]`, code: "not_found", message: `No file ${id}.` }],
  );
  if (errors.length)
    throw new ApiError("invalid_parameter", errors.length === 1 ? errors[0].message : "Some files do not exist.", {
      errors,
    });
}

export async function getRun(organizationId: string, runId: string, tx: DbOrTx = db): Promise<RunRow> {
  // Every tool call reads its run: on the driver outside a transaction (lib/db/driver.ts).
  const where = { id: runId, organizationId };
  const viaPrisma = () => tx.run.findFirst({ where, select: runSelect });
  const run = tx === db ? await findFirstOnDriver("Run", runSelect, where, viaPrisma) : await viaPrisma();
  if (!run) throw notFound("Run");
  return run;
}

/**
 * A managed run's conversation as sent to its model (tool results included: the organization's own data),
 * and when the retention job deleted it (then there are no messages).
 */
export async function runTranscript(
  organizationId: string,
  runId: string,
  tx: DbOrTx = db,
): Promise<{ messages: RunMessage[]; purgedAt: Date | null }> {
  const run = await tx.run.findFirst({
    where: { id: runId, organizationId },
    select: { transcript: true, transcriptPurgedAt: true },
  });
  if (!run) throw notFound("Run");
  const messages = z
    .array(RunMessage)
    .catch([])
    .parse(run.transcript ?? []);
  return { messages, purgedAt: run.transcriptPurgedAt };
}

/** Whether the run outlived its agent: kept as a record with `agent: null`, it executes and commits nothing more. */
export async function runLostItsAgent(organizationId: string, runId: string, tx: DbOrTx = db): Promise<boolean> {
  const run = await tx.run.findFirst({ where: { id: runId, organizationId }, select: { agentId: true } });
  return run !== null && run.agentId === null;
}

/** One page of the organization's runs, newest first (limit + 1 rows, for `page`). */
export async function listRuns(organizationId: string, query: RunListQuery, tx: DbOrTx = db): Promise<RunRow[]> {
  return tx.run.findMany({
    where: { organizationId, ...(query.agent ? { agentId: query.agent } : {}), ...afterCursor(query.cursor) },
    orderBy: [{ createdAt: "desc" }, { id: "desc" }],
    take: query.limit + 1,
    select: runSelect,
  });
}

/**
 * Cancels a run: no further call is accepted, and this instance's calls in
 * flight are aborted. Cancelling a cancelled run is a no-op; a run that already
 * ended otherwise (expired, completed) cannot be cancelled.
 */
export async function cancelRun(organizationId: string, runId: string): Promise<{ run: RunRow; calls: AbortedCalls }> {
  const run = await getRun(organizationId, runId);
  const status = effectiveStatus(run);
  if (status === "cancelled") return { run, calls: { stopped: 0, uninterruptible: 0 } };
  if (!(liveRunStatuses as readonly string[]).includes(status))
    throw new ApiError("conflict", `This run is ${status}: there is nothing left to cancel.`, { reason: { status } });
  const updated = await db.run.updateMany({
    where: { id: run.id, organizationId, status: { in: [...liveRunStatuses] } },
    data: { status: "cancelled", requiredAction: Prisma.DbNull, pendingApproval: Prisma.DbNull },
  });
  if (updated.count === 0) return cancelRun(organizationId, runId);
  return { run: await getRun(organizationId, runId), calls: abortRunCalls(run.id) };
}
