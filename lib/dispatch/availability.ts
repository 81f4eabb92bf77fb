import "server-only";
import { builtinTools, STRUCTURED_DATA_FEATURE } from "@/lib/catalog/builtin";
import { reason } from "@/lib/catalog/reasons";
import { mcpServerStateSelect, mcpToolStateSelect, mcpUnavailability, missingSetting } from "@/lib/catalog/service";
import type { Contract } from "@/lib/contracts/types";
import { db } from "@/lib/db";
import { WatchedCache } from "@/lib/db/changes";
import { env } from "@/lib/env";
import { builtinExecutor, mcpExecutor, ToolError, type Executor } from "@/lib/executors";
import type { WebSearchConfig } from "@/lib/executors/native/web-search";
import { serverEndpoint } from "@/lib/mcp/servers";

// Whether a tool of the run can execute right now, and with which executor. A
// run froze its tools at creation, but the world moves: a plan loses a
// feature, a connector is switched off, a tool is disabled or disappears from
// its server, an instance lacks a setting the tool needs. Then the call is
// refused as TOOL_UNAVAILABLE with the reason.
// A tool that merely changed on its server (needs review) keeps serving the
// reviewed version the run froze: its contract still guards both directions.

/** The operator's search backend, for every context a tool is called in (tool calls, the operations API). */
export function searchSettings(privateOrigins: readonly string[]): WebSearchConfig {
  return { searchUrl: env.GUICHET_SEARCH_URL ?? null, privateOrigins };
}

function unavailable(message: string): ToolError {
  return new ToolError("TOOL_UNAVAILABLE", message);
}

function loadMcpServer(organizationId: string, serverId: number, tool: string) {
  return db.mcpServer.findFirst({
    where: { id: serverId, organizationId },
    select: {
      ...mcpServerStateSelect,
      url: true,
      tokenCiphertext: true,
      tools: { where: { name: tool }, select: { ...mcpToolStateSelect, removedAt: true } },
    },
  });
}

// The connector and tool row an MCP call needs, kept in process while the catalog topic has not moved
// (lib/db/changes.ts: any change of a connector or a tool, on any instance, is seen by the next call).
// Read through Prisma on every call, it was the largest part of the dispatcher's own CPU on an MCP read
// (docs/hot-path-profile.md). The row holds the token as stored, encrypted; it is decrypted per call.
const mcpServers = new WatchedCache<string, NonNullable<Awaited<ReturnType<typeof loadMcpServer>>>>(["catalog"]);

export async function executorFor(organizationId: string, contract: Contract): Promise<Executor> {
  if (contract.kind === "mcp") {
    if (!contract.mcp) throw unavailable("This tool's contract names no MCP server.");
    const { server_id: serverId, tool: toolName } = contract.mcp;
    const server = await mcpServers.get(`${organizationId}\n${serverId}\n${toolName}`, () =>
      loadMcpServer(organizationId, serverId, toolName),
    );
    const tool = server?.tools[0];
    if (!server || !tool || tool.removedAt) throw unavailable("This tool is no longer offered by its MCP server.");
    const code = mcpUnavailability(server, tool);
    if (code && code !== "mcp_tool_needs_review") throw unavailable(reason(code).message);
    let endpoint: { url: string; token: string | null };
    try {
      endpoint = serverEndpoint(server);
    } catch {
      throw unavailable("The connector's stored token cannot be read; give the connector a new token.");
    }
    return mcpExecutor({ ...endpoint, serverId: contract.mcp.server_id }, contract.mcp.tool, contract.timeout_ms);
  }
  if (contract.kind === "data") {
    const organization = await db.organization.findUnique({
      where: { id: organizationId },
      select: { plan: { select: { features: true } } },
    });
    const features = Array.isArray(organization?.plan.features) ? (organization.plan.features as string[]) : [];
    if (!features.includes(STRUCTURED_DATA_FEATURE)) throw unavailable(reason("plan_feature_missing").message);
  }
  // A run frozen on an instance that had the setting may be called on one that lacks it.
  const setting = missingSetting(builtinTools.find((tool) => tool.key === contract.key) ?? {});
  if (setting) throw unavailable(reason("not_configured", setting).message);
  const executor = builtinExecutor(contract.key);
  if (!executor) throw unavailable("This tool has no executor in this version of Guichet.");
  return executor;
}
