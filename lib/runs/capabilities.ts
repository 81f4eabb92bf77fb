import "server-only";
import { fileToolKeys, forcedToolKeys } from "@/lib/catalog/builtin";
import { catalogIndex, mcpToolKey, unavailabilityForConnectedMember } from "@/lib/catalog/service";
import { memberCredentialCodes, memberNotConnected, reason } from "@/lib/catalog/reasons";
import { connectedServers } from "@/lib/connections/credentials";
import { connectUrl } from "@/lib/connections/service";
import { currentBuiltinContract } from "@/lib/contracts/builtin";
import { publishMcpContract } from "@/lib/contracts/mcp";
import { db, type DbOrTx } from "@/lib/db";
import { runMayHold, type RunCapabilities } from "./capability-rule";
import type { CapabilityEntry } from "./model";

// A run's capability set: the exact tools and versions it may call, decided
// once at creation and frozen. The agent's tools, the forced tools, the file
// tools when the run has files or the agent has documents — minus what is
// unavailable now and, in a `read` run, minus every write tool. Each tool left
// out is reported as a warning, never silently.
//
// A run acts for its member when it has one (a console session, an MCP door
// session signed in by OAuth): a connector that acts as each member offers its
// tools when that member connected it, else leaves them out with
// mcp_member_not_connected and where to connect. A run with no member (an API
// key, a widget) keeps the catalog's codes for them.

export interface RunWarning {
  code: "tool_unavailable" | "write_tool_excluded";
  tool: string;
  reason: { code: string; message: string; connect_url?: string };
}

export async function resolveCapabilitySet(
  input: {
    organizationId: string;
    agentTools: string[];
    withFileTools: boolean;
    capabilities: RunCapabilities;
    /** The member the run acts for, or null (API key, widget). */
    memberId: string | null;
  },
  tx: DbOrTx = db,
): Promise<{ capabilitySet: CapabilityEntry[]; warnings: RunWarning[] }> {
  const catalog = await catalogIndex(input.organizationId, tx);
  const keys = [...new Set([...input.agentTools, ...forcedToolKeys, ...(input.withFileTools ? fileToolKeys : [])])];
  const perMemberServers = new Set<number>();
  for (const key of keys) {
    const entry = catalog.get(key);
    if (entry?.server && entry.reason && memberCredentialCodes.includes(entry.reason.code))
      perMemberServers.add(entry.server.id);
  }
  const connected =
    input.memberId && perMemberServers.size
      ? await connectedServers(input.organizationId, input.memberId, [...perMemberServers])
      : new Set<number>();
  const capabilitySet: CapabilityEntry[] = [];
  const warnings: RunWarning[] = [];
  for (const key of keys) {
    const entry = catalog.get(key);
    if (!entry) {
      warnings.push({
        code: "tool_unavailable",
        tool: key,
        reason: { code: "tool_removed", message: "This tool is no longer in the catalog." },
      });
      continue;
    }
    const forMember =
      input.memberId && entry.server && perMemberServers.has(entry.server.id)
        ? unavailabilityForConnectedMember(entry)
        : undefined;
    if (forMember !== undefined && entry.server) {
      if (forMember !== null) {
        warnings.push({ code: "tool_unavailable", tool: key, reason: reason(forMember) });
        continue;
      }
      if (!connected.has(entry.server.id)) {
        warnings.push({ code: "tool_unavailable", tool: key, reason: memberNotConnected(connectUrl(entry.server.id)) });
        continue;
      }
    } else if (!entry.available) {
      warnings.push({
        code: "tool_unavailable",
        tool: key,
        reason: entry.reason ?? { code: "tool_unavailable", message: "This tool is unavailable." },
      });
      continue;
    }
    // Reviewed MCP tools get their contract published here if the review step has not done it yet.
    const contract =
      entry.kind === "mcp" && entry.server
        ? await publishMcpContract(tx, {
            serverId: entry.server.id,
            name: key.slice(mcpToolKey(entry.server.id, "").length),
          })
        : currentBuiltinContract(key);
    if (!contract) {
      warnings.push({ code: "tool_unavailable", tool: key, reason: reason("mcp_tool_needs_review") });
      continue;
    }
    if (!runMayHold(input.capabilities, contract.effect)) {
      warnings.push({
        code: "write_tool_excluded",
        tool: key,
        reason: {
          code: "read_run",
          message: 'This tool changes data and the run was created with capabilities "read".',
        },
      });
      continue;
    }
    capabilitySet.push({ key, version: contract.version, effect: contract.effect });
  }
  return { capabilitySet, warnings };
}
