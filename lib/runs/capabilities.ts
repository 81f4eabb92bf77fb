import "server-only";
import { fileToolKeys, forcedToolKeys } from "@/lib/catalog/builtin";
import { catalogIndex, mcpToolKey } from "@/lib/catalog/service";
import { reason } from "@/lib/catalog/reasons";
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

export interface RunWarning {
  code: "tool_unavailable" | "write_tool_excluded";
  tool: string;
  reason: { code: string; message: string };
}

export async function resolveCapabilitySet(
  input: { organizationId: string; agentTools: string[]; withFileTools: boolean; capabilities: RunCapabilities },
  tx: DbOrTx = db,
): Promise<{ capabilitySet: CapabilityEntry[]; warnings: RunWarning[] }> {
  const catalog = await catalogIndex(input.organizationId, tx);
  const keys = [...new Set([...input.agentTools, ...forcedToolKeys, ...(input.withFileTools ? fileToolKeys : [])])];
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
    if (!entry.available) {
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
