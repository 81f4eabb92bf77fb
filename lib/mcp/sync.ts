import "server-only";
import { recordAudit, type AuditActor } from "@/lib/audit/record";
import { db, Prisma } from "@/lib/db";
import { ApiError } from "@/lib/http/errors";
import { liveFactEnums, type LiveFactEnum } from "@/lib/contracts/live-facts";
import type { JsonSchema } from "@/lib/contracts/types";
import { toolFingerprint, suggestedWritesData } from "./fingerprint";
import { privateOriginsFor } from "@/lib/net/origin-grants";
import { actsAsMember } from "@/lib/catalog/service";
import { memberAccessToken, MemberNotConnected, RefreshUnavailable } from "@/lib/connections/credentials";
import { connectUrl } from "@/lib/connections/service";
import { listRemoteTools, McpFailure, type McpEndpoint, type RemoteTool } from "./remote";
import { connectorTarget, findServer, serverEndpoint, serverSelect, type McpServerRow } from "./servers";

// Sync: list a server's tools over MCP and record them. Everything is fetched
// and checked first; the database changes in one transaction only when the
// whole answer was good, so a failed sync changes no tool.

export interface SyncSummary {
  added: string[];
  changed: string[];
  removed: string[];
  unchanged: string[];
  /** Input enums that look like live facts, each tool compared with what its previous sync recorded. */
  live_fact_enums: (LiveFactEnum & { tool: string })[];
}

type Json = Prisma.InputJsonValue;

function recordedShape(tool: RemoteTool) {
  const shape = {
    description: tool.description ?? "",
    input_schema: tool.inputSchema,
    output_schema: tool.outputSchema ?? null,
  };
  return { ...shape, fingerprint: toolFingerprint(shape) };
}

/**
 * Where and as whom to list the tools. A connector that acts as each member is
 * listed with the acting admin's own connection (connect first, else 409
 * connection_required with where): what one member's account sees is never
 * what decides the reviewed catalog for a member who did not sync.
 */
async function syncEndpoint(organizationId: string, server: McpServerRow, actor: AuditActor): Promise<McpEndpoint> {
  if (!actsAsMember(server)) return serverEndpoint(server);
  const connectFirst = (needsReconnect: boolean, connectUrl: string) =>
    new ApiError(
      "connection_required",
      needsReconnect
        ? `Your own connection to this connector must be renewed before syncing it: reconnect at ${connectUrl}.`
        : `This connector acts as each member: connect your own account first (${connectUrl}), then sync.`,
      {
        reason: {
          code: "mcp_member_not_connected",
          connect_url: connectUrl,
          state: needsReconnect ? "needs_reconnect" : "not_connected",
        },
      },
    );
  if (actor.type !== "member") throw connectFirst(false, connectUrl(server.id));
  try {
    return { url: server.url, token: await memberAccessToken({ ...server, organizationId }, actor.id) };
  } catch (error) {
    if (error instanceof MemberNotConnected) throw connectFirst(error.needsReconnect, error.connectUrl);
    if (error instanceof RefreshUnavailable)
      throw new ApiError("mcp_sync_failed", `Sync failed: ${error.message} Nothing was changed.`, {
        reason: { code: "unauthorized", message: error.message },
      });
    throw error;
  }
}

export async function syncServer(
  organizationId: string,
  serverId: number,
  actor: AuditActor,
): Promise<{ server: McpServerRow; summary: SyncSummary }> {
  const server = await findServer(organizationId, serverId);
  let remote: RemoteTool[];
  try {
    // Inside: a stored token that no longer decrypts is a failed sync (McpFailure), like an unreachable server.
    remote = await listRemoteTools(await syncEndpoint(organizationId, server, actor), {
      policy: { privateOrigins: await privateOriginsFor(organizationId) },
    });
  } catch (error) {
    if (!(error instanceof McpFailure)) throw error;
    await db.$transaction(async (tx) => {
      await tx.mcpServer.update({
        where: { id: server.id },
        data: { lastSyncError: JSON.stringify({ code: error.kind, message: error.message }) },
      });
      await recordAudit(
        {
          organizationId,
          actor,
          action: "connector.synced",
          target: connectorTarget(server.id),
          details: { outcome: "failed", code: error.kind },
        },
        tx,
      );
    });
    throw new ApiError("mcp_sync_failed", `Sync failed: ${error.message} Nothing was changed.`, {
      reason: { code: error.kind, message: error.message },
    });
  }

  const summary: SyncSummary = { added: [], changed: [], removed: [], unchanged: [], live_fact_enums: [] };
  const now = new Date();
  const updated = await db.$transaction(async (tx) => {
    const stored = await tx.mcpTool.findMany({
      where: { serverId: server.id, organizationId },
      select: { id: true, name: true, fingerprint: true, removedAt: true, inputSchema: true },
    });
    const byName = new Map(stored.map((tool) => [tool.name, tool]));
    for (const tool of remote) {
      const shape = recordedShape(tool);
      const data = {
        description: shape.description,
        inputSchema: shape.input_schema as Json,
        outputSchema: (shape.output_schema ?? undefined) as Json | undefined,
        annotations: (tool.annotations ?? undefined) as Json | undefined,
        fingerprint: shape.fingerprint,
      };
      const existing = byName.get(tool.name);
      for (const flag of liveFactEnums(tool.inputSchema, existing ? (existing.inputSchema as JsonSchema) : null))
        summary.live_fact_enums.push({ tool: tool.name, ...flag });
      if (!existing) {
        // New: unavailable until a person reviews it; "writes data" starts from the (untrusted) hint.
        await tx.mcpTool.create({
          data: {
            ...data,
            serverId: server.id,
            organizationId,
            name: tool.name,
            writesData: suggestedWritesData(tool.annotations),
          },
        });
        summary.added.push(tool.name);
        continue;
      }
      // A changed fingerprint no longer matches the reviewed one: that alone makes the tool "needs review" again.
      const bucket =
        existing.fingerprint !== shape.fingerprint
          ? summary.changed
          : existing.removedAt
            ? summary.added
            : summary.unchanged;
      bucket.push(tool.name);
      await tx.mcpTool.update({
        where: { id: existing.id },
        data: {
          ...data,
          outputSchema: data.outputSchema ?? Prisma.DbNull,
          annotations: data.annotations ?? Prisma.DbNull,
          removedAt: null,
        },
      });
    }
    const listed = new Set(remote.map((tool) => tool.name));
    const gone = stored.filter((tool) => !listed.has(tool.name) && !tool.removedAt);
    if (gone.length)
      await tx.mcpTool.updateMany({ where: { id: { in: gone.map((tool) => tool.id) } }, data: { removedAt: now } });
    summary.removed.push(...gone.map((tool) => tool.name));
    await recordAudit(
      {
        organizationId,
        actor,
        action: "connector.synced",
        target: connectorTarget(server.id),
        details: {
          outcome: "succeeded",
          added: summary.added.slice(0, 50),
          changed: summary.changed.slice(0, 50),
          removed: summary.removed.slice(0, 50),
        },
      },
      tx,
    );
    return tx.mcpServer.update({
      where: { id: server.id },
      data: { lastSyncedAt: now, lastSyncError: null },
      select: serverSelect,
    });
  });
  return { server: updated, summary };
}
