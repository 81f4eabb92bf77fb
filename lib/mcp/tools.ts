import "server-only";
import { z } from "zod";
import { reason } from "@/lib/catalog/reasons";
import { mcpToolKey, mcpUnavailability } from "@/lib/catalog/service";
import { recordAudit, type AuditActor } from "@/lib/audit/record";
import { db, type DbOrTx, Prisma } from "@/lib/db";
import { ApiError, notFound } from "@/lib/http/errors";
import { isoOffsetOrNull } from "@/lib/time";
import type { McpToolObject, McpToolUpdateBody } from "./api";
import { mcpToolTimeoutMs } from "./schemas";
import { shapeChanges, suggestedWritesData, type ReviewedShape } from "./fingerprint";
import { reviewReplay } from "@/lib/traces/review";
import { boundedMcpInput } from "@/lib/contracts/mcp";
import { liveFactEnums } from "@/lib/contracts/live-facts";
import { connectorTarget, findServer } from "./servers";

// The tools of one server as a reviewer sees them, and the review itself: a
// person decides whether a tool writes data and accepts exactly the version
// (fingerprint) they were shown.

const toolSelect = {
  name: true,
  description: true,
  inputSchema: true,
  outputSchema: true,
  annotations: true,
  fingerprint: true,
  reviewedFingerprint: true,
  reviewedSnapshot: true,
  reviewedAt: true,
  reviewedById: true,
  enabled: true,
  writesData: true,
  timeoutMs: true,
  removedAt: true,
} as const;

type ToolRow = Prisma.McpToolGetPayload<{ select: typeof toolSelect }>;
type ServerState = { id: number; name: string; auth: string; active: boolean };

const JsonObject = z.record(z.string(), z.unknown());
const Snapshot = z.object({ description: z.string(), input_schema: z.unknown(), output_schema: z.unknown() });

type ShapeRow = Pick<ToolRow, "description" | "inputSchema" | "outputSchema" | "fingerprint">;

function currentShape(tool: ShapeRow): ReviewedShape {
  return { description: tool.description, input_schema: tool.inputSchema, output_schema: tool.outputSchema ?? null };
}

/** What a review records: the exact version accepted (fingerprint and snapshot, for the next diff), when and by whom. */
export function reviewFields(tool: ShapeRow, reviewerId: string | null) {
  return {
    reviewedFingerprint: tool.fingerprint,
    reviewedSnapshot: { ...currentShape(tool) } as Prisma.InputJsonObject,
    reviewedAt: new Date(),
    reviewedById: reviewerId,
  };
}

export function serializeTool(server: ServerState, tool: ToolRow): McpToolObject {
  const code = mcpUnavailability(server, tool);
  const reviewed = tool.reviewedFingerprint === tool.fingerprint;
  const snapshot = Snapshot.safeParse(tool.reviewedSnapshot);
  const annotations = JsonObject.nullable()
    .catch(null)
    .parse(tool.annotations ?? null);
  const input = JsonObject.catch({}).parse(tool.inputSchema);
  const reviewedInput = snapshot.success ? JsonObject.nullable().catch(null).parse(snapshot.data.input_schema) : null;
  return {
    name: tool.name,
    key: mcpToolKey(server.id, tool.name),
    description: tool.description,
    input_schema: input,
    output_schema: JsonObject.nullable()
      .catch(null)
      .parse(tool.outputSchema ?? null),
    annotations,
    fingerprint: tool.fingerprint,
    status: reviewed ? "reviewed" : "needs_review",
    enabled: tool.enabled,
    writes_data: tool.writesData,
    suggested_writes_data: suggestedWritesData(annotations),
    timeout_ms: mcpToolTimeoutMs(tool),
    timeout_source: tool.timeoutMs === null ? "default" : "review",
    available: code === null && tool.removedAt === null,
    reason: code ? reason(code) : null,
    changes: reviewed
      ? []
      : shapeChanges(snapshot.success ? (snapshot.data as ReviewedShape) : null, currentShape(tool)),
    guichet_bounds: boundedMcpInput(input).added,
    live_fact_enums: liveFactEnums(input, reviewedInput),
    reviewed_at: isoOffsetOrNull(tool.reviewedAt),
    reviewed_by: tool.reviewedById,
    removed_at: isoOffsetOrNull(tool.removedAt),
    replay: null,
  };
}

export async function listServerTools(
  organizationId: string,
  serverId: number,
  tx: DbOrTx = db,
): Promise<McpToolObject[]> {
  const server = await findServer(organizationId, serverId, tx);
  const tools = await tx.mcpTool.findMany({
    where: { serverId: server.id, organizationId },
    select: toolSelect,
    orderBy: { name: "asc" },
  });
  return Promise.all(
    tools.map(async (tool) => ({
      ...serializeTool(server, tool),
      replay: await reviewReplay(organizationId, server.id, tool, tools, tx),
    })),
  );
}

export async function updateServerTool(
  organizationId: string,
  serverId: number,
  name: string,
  input: McpToolUpdateBody,
  reviewerId: string | null,
  actor: AuditActor,
): Promise<McpToolObject> {
  return db.$transaction(async (tx) => {
    const server = await findServer(organizationId, serverId, tx);
    const tool = await tx.mcpTool.findFirst({
      where: { serverId: server.id, organizationId, name },
      select: { id: true, ...toolSelect },
    });
    if (!tool) throw notFound("MCP tool");
    if (input.reviewed === true && input.fingerprint !== tool.fingerprint) {
      // The tool changed (a sync ran) between the moment the reviewer looked and now.
      throw new ApiError("mcp_tool_changed", "The tool changed since you loaded it: review the new version.", {
        reason: { fingerprint: tool.fingerprint },
      });
    }
    const review =
      input.reviewed === true
        ? reviewFields(tool, reviewerId)
        : input.reviewed === false
          ? { reviewedFingerprint: null }
          : {};
    const updated = await tx.mcpTool.update({
      where: { id: tool.id },
      data: { enabled: input.enabled, writesData: input.writes_data, timeoutMs: input.timeout_ms, ...review },
      select: toolSelect,
    });
    await recordAudit(
      {
        organizationId,
        actor,
        action: "connector.reviewed",
        target: connectorTarget(server.id),
        details: {
          tool: tool.name.slice(0, 128),
          fields: Object.keys(input).filter((field) => field !== "fingerprint"),
          ...(input.reviewed !== undefined ? { reviewed: input.reviewed } : {}),
        },
      },
      tx,
    );
    return serializeTool(server, updated);
  });
}
