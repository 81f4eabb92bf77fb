import { consentAt } from "@/connectors/boutique/sign-in";
import { createAgent } from "@/lib/agents/service";
import { SYSTEM_ACTOR } from "@/lib/audit/record";
import { catalogIndex } from "@/lib/catalog/service";
import { authorizeMember, completeAuthorization } from "@/lib/connections/authorize";
import { callbackUrl } from "@/lib/connections/oauth";
import { dropServerCredentials } from "@/lib/connections/service";
import { db } from "@/lib/db";
import { env } from "@/lib/env";
import { reviewAsAnnotated } from "@/lib/mcp/seed";
import { createServer, updateServer } from "@/lib/mcp/servers";
import { syncServer } from "@/lib/mcp/sync";

// The quickstart's per-member connector: Acme connected to Boutique, the demo
// shop whose MCP server needs each member's own OAuth sign-in. Boutique's tools
// are listed with an administrator's own connection, so the seed signs Acme's
// owner in at Boutique as a shop customer would (its login and consent pages,
// then Guichet's callback), syncs and reviews the tools, and creates the demo
// agent. Every other member connects from Préférences › Mes connexions.
// Idempotent; a Boutique that is not running leaves the connector unsynced.

export const DEMO_SHOP_CONNECTOR = "Boutique";
/** The shop account of Acme's owner (connectors/boutique/accounts.ts). */
const OWNER_SHOP_ACCOUNT = "camille@boutique.test";

export async function seedDemoBoutique(organizationId: string): Promise<void> {
  const url = env.GUICHET_DEMO_BOUTIQUE_URL;
  if (!url) return;
  const existing = await db.mcpServer.findFirst({
    where: { organizationId, name: DEMO_SHOP_CONNECTOR },
    select: { id: true, url: true },
  });
  const serverId =
    existing?.id ??
    (await createServer(organizationId, { name: DEMO_SHOP_CONNECTOR, url, auth: "oauth", active: true }, SYSTEM_ACTOR))
      .id;
  // A new port for the demo shop (test stacks pick a free one): follow it (the members' tokens go with the old origin).
  if (existing && existing.url !== url) await updateServer(organizationId, serverId, { url }, SYSTEM_ACTOR);
  // Boutique keeps its registered clients and sign-ins in memory: once restarted it knows neither Guichet's
  // registration nor the members' tokens, so they go here too (members reconnect; Guichet registers again).
  if (existing) await dropServerCredentials(organizationId, serverId, SYSTEM_ACTOR, "upstream_reset", db);
  const owner = await db.member.findFirstOrThrow({
    where: { organizationId, role: "owner" },
    select: { id: true, email: true },
  });
  try {
    const reviewed = await db.mcpTool.count({ where: { serverId, reviewedFingerprint: { not: null } } });
    if (reviewed === 0) {
      await connectOwner(organizationId, serverId, owner);
      await syncServer(organizationId, serverId, { type: "member", id: owner.id, label: owner.email });
      await reviewAsAnnotated(organizationId, serverId);
    }
  } catch (error) {
    console.warn(
      `  Boutique was not synced (${error instanceof Error ? error.message : "unknown error"}); an admin connects it under Mes connexions, then syncs it from "Connecteurs MCP".`,
    );
    return;
  }
  await seedShopAgent(organizationId);
}

/** Acme's owner signs in at Boutique: its pages played over HTTP, then Guichet's own callback handling. */
async function connectOwner(organizationId: string, serverId: number, owner: { id: string; email: string }) {
  const origin = env.consoleOrigin ?? "http://localhost:3000";
  const { authorizationUrl } = await authorizeMember({ organizationId, memberId: owner.id }, serverId, { origin });
  const back = await consentAt(authorizationUrl, OWNER_SHOP_ACCOUNT, callbackUrl(origin));
  await completeAuthorization(back.searchParams, { organizationId, memberId: owner.id, email: owner.email });
}

async function seedShopAgent(organizationId: string): Promise<void> {
  const name = "Commandes Boutique";
  if (await db.agent.findFirst({ where: { organizationId, name }, select: { id: true } })) return;
  const catalog = await catalogIndex(organizationId);
  const server = await db.mcpServer.findFirstOrThrow({
    where: { organizationId, name: DEMO_SHOP_CONNECTOR },
    select: { id: true },
  });
  const tools = [...catalog.values()].filter((tool) => tool.server?.id === server.id).map((tool) => tool.key);
  await createAgent(
    organizationId,
    {
      name,
      // The marker selects model-sim's Boutique script (connectors/model-sim/demo/boutique-orders.json); a real model ignores it.
      instructions:
        "Tu aides le membre avec ses commandes Boutique : liste-les, détaille-les, propose une annulation s’il la demande. sim:demo_boutique_orders",
      tools,
    },
    SYSTEM_ACTOR,
  );
}
