import "server-only";
import { SYSTEM_ACTOR } from "@/lib/audit/record";
import { db } from "@/lib/db";
import { suggestedWritesData } from "@/lib/mcp/fingerprint";
import { createServer } from "@/lib/mcp/servers";
import { syncServer } from "@/lib/mcp/sync";
import { reviewFields } from "@/lib/mcp/tools";

/**
 * CRM Acme connected to the bench's organization and reviewed as an admin would
 * (all its tools, or only those named); answers each tool's catalog key.
 */
export async function connectBenchCrm(
  organizationId: string,
  crmUrl: string,
  only?: readonly string[],
): Promise<(tool: string) => string> {
  const server = await createServer(
    organizationId,
    { name: "CRM Acme (bench)", url: crmUrl, auth: "none", active: true },
    SYSTEM_ACTOR,
  );
  await syncServer(organizationId, server.id, SYSTEM_ACTOR);
  const tools = await db.mcpTool.findMany({
    where: { serverId: server.id, ...(only ? { name: { in: [...only] } } : {}) },
  });
  for (const tool of tools) {
    await db.mcpTool.update({
      where: { id: tool.id },
      data: {
        writesData: suggestedWritesData(tool.annotations as Record<string, unknown> | null),
        ...reviewFields(tool, null),
      },
    });
  }
  return (tool) => `mcp_${server.id}_${tool}`;
}
