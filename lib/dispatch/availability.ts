import "server-only";
import { builtinTools, STRUCTURED_DATA_FEATURE } from "@/lib/catalog/builtin";
import { reason } from "@/lib/catalog/reasons";
import {
  actsAsMember,
  mcpServerStateSelect,
  mcpToolStateSelect,
  mcpUnavailability,
  missingSetting,
} from "@/lib/catalog/service";
import { memberAccessToken, MemberNotConnected, RefreshUnavailable } from "@/lib/connections/credentials";
import type { Contract } from "@/lib/contracts/types";
import { db } from "@/lib/db";
import { WatchedCache } from "@/lib/db/changes";
import { env } from "@/lib/env";
import { builtinExecutor, mcpExecutor, refusedCredentials, ToolError, type Executor } from "@/lib/executors";
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

/** The member has no usable connection to the tool's server: TOOL_UNAVAILABLE with where to connect. */
export function notConnected(error: MemberNotConnected): ToolError {
  return new ToolError("TOOL_UNAVAILABLE", `${error.message} Connect it at ${error.connectUrl}.`, {
    reason: {
      code: "mcp_member_not_connected",
      message: error.message,
      connect_url: error.connectUrl,
      state: error.needsReconnect ? "needs_reconnect" : "not_connected",
    },
  });
}

/**
 * A per-member connector's tool, called with the run's member's own token, read
 * (and refreshed when due) as the call runs. A token the server refuses (HTTP
 * 401: nothing was served) is renewed once and the call sent once more; a renewal
 * the authorization server refuses marks the connection `needs_reconnect` and the
 * call answers TOOL_UNAVAILABLE with where to reconnect.
 */
function memberExecutor(
  server: Parameters<typeof memberAccessToken>[0],
  memberId: string,
  tool: string,
  timeoutMs: number,
): Executor {
  const token = async (refused?: string) => {
    try {
      return await memberAccessToken(server, memberId, { refused });
    } catch (error) {
      if (error instanceof MemberNotConnected) throw notConnected(error);
      if (error instanceof RefreshUnavailable)
        throw new ToolError("UPSTREAM_ERROR", error.message, { retryable: true });
      throw error;
    }
  };
  const callWith = (value: string) =>
    mcpExecutor({ url: server.url, serverId: server.id, memberId, token: value }, tool, timeoutMs);
  return {
    execute: async (args, ctx) => {
      const first = await token();
      try {
        return await callWith(first).execute(args, ctx);
      } catch (error) {
        if (server.auth !== "oauth" || !refusedCredentials(error)) throw error;
        return callWith(await token(first)).execute(args, ctx);
      }
    },
  };
}

function loadMcpServer(organizationId: string, serverId: number, tool: string) {
  return db.mcpServer.findFirst({
    where: { id: serverId, organizationId },
    select: {
      ...mcpServerStateSelect,
      organizationId: true,
      url: true,
      tokenCiphertext: true,
      oauthClientId: true,
      oauthClientSecretCiphertext: true,
      tools: { where: { name: tool }, select: { ...mcpToolStateSelect, removedAt: true } },
    },
  });
}

// The connector and tool row an MCP call needs, kept in process while the catalog topic has not moved
// (lib/db/changes.ts: any change of a connector or a tool, on any instance, is seen by the next call).
// Read through Prisma on every call, it was the largest part of the dispatcher's own CPU on an MCP read
// (docs/hot-path-profile.md). The row holds its secrets as stored, encrypted; they are decrypted per call,
// and a member's own connection is read as the call runs (memberAccessToken), never kept here.
const mcpServers = new WatchedCache<string, NonNullable<Awaited<ReturnType<typeof loadMcpServer>>>>(["catalog"]);

/**
 * `memberId`: the member the run acts for, or null. A connector that acts as each
 * member is called with that member's own credential, never another's; with no
 * member its tools are unavailable (seed 002's codes).
 */
export async function executorFor(
  organizationId: string,
  contract: Contract,
  memberId: string | null,
): Promise<Executor> {
  if (contract.kind === "mcp") {
    if (!contract.mcp) throw unavailable("This tool's contract names no MCP server.");
    const { server_id: serverId, tool: toolName } = contract.mcp;
    const server = await mcpServers.get(`${organizationId}\n${serverId}\n${toolName}`, () =>
      loadMcpServer(organizationId, serverId, toolName),
    );
    const tool = server?.tools[0];
    if (!server || !tool || tool.removedAt) throw unavailable("This tool is no longer offered by its MCP server.");
    // Connection state is read when the call runs (memberAccessToken): here only "is there a member".
    const code = mcpUnavailability(server, tool, memberId ? { connected: true } : null);
    if (code && code !== "mcp_tool_needs_review") throw unavailable(reason(code).message);
    if (actsAsMember(server) && memberId)
      return memberExecutor(server, memberId, contract.mcp.tool, contract.timeout_ms);
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
