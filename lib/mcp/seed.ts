import "server-only";
import { SYSTEM_ACTOR } from "@/lib/audit/record";
import { db } from "@/lib/db";
import { env } from "@/lib/env";
import { ApiError } from "@/lib/http/errors";
import { suggestedWritesData } from "./fingerprint";
import { createServer } from "./servers";
import { syncServer } from "./sync";
import { reviewFields } from "./tools";

export const DEMO_CONNECTOR_NAME = "CRM Acme";

/**
 * The quickstart's connector: Acme connected to the reference CRM Acme server,
 * synced, and its tools reviewed as an administrator would (writes_data from
 * the annotations, which for this server we know to be right). Idempotent; a
 * CRM that is not running leaves the connector unsynced with a warning.
 */
export async function seedDemoConnector(organizationId: string): Promise<void> {
  const existing = await db.mcpServer.findFirst({
    where: { organizationId, name: DEMO_CONNECTOR_NAME },
    select: { id: true, url: true },
  });
  const serverId =
    existing?.id ??
    (
      await createServer(
        organizationId,
        {
          name: DEMO_CONNECTOR_NAME,
          url: env.GUICHET_DEMO_CRM_URL,
          auth: "none",
          active: true,
        },
        SYSTEM_ACTOR,
      )
    ).id;
  if (existing && existing.url !== env.GUICHET_DEMO_CRM_URL) {
    // A new port for the demo CRM (test stacks pick a free one): follow it.
    await db.mcpServer.update({ where: { id: existing.id }, data: { url: env.GUICHET_DEMO_CRM_URL } });
  }
  try {
    await syncServer(organizationId, serverId, SYSTEM_ACTOR);
  } catch (error) {
    if (!(error instanceof ApiError)) throw error;
    console.warn(`  CRM Acme was not synced (${error.message}); sync it from "Connecteurs MCP" once it runs.`);
    return;
  }
  await reviewAsAnnotated(organizationId, serverId);
}

/**
 * Reviews a demo connector's new tools as an administrator would: writes_data from the annotations,
 * which for the reference servers we know to be right, signed by the organization's owner.
 */
export async function reviewAsAnnotated(organizationId: string, serverId: number): Promise<void> {
  const reviewer = await db.member.findFirst({ where: { organizationId, role: "owner" }, select: { id: true } });
  const unreviewed = await db.mcpTool.findMany({
    where: { serverId, organizationId, reviewedFingerprint: null },
    select: {
      id: true,
      description: true,
      inputSchema: true,
      outputSchema: true,
      annotations: true,
      fingerprint: true,
    },
  });
  for (const tool of unreviewed) {
    const annotations =
      tool.annotations && typeof tool.annotations === "object" ? (tool.annotations as Record<string, unknown>) : null;
    await db.mcpTool.update({
      where: { id: tool.id },
      data: { writesData: suggestedWritesData(annotations), ...reviewFields(tool, reviewer?.id ?? null) },
    });
  }
}
