import "server-only";
import { SYSTEM_ACTOR } from "@/lib/audit/record";
import { catalogIndex } from "@/lib/catalog/service";
import { db } from "@/lib/db";
import type { AgentCreateBody } from "./api";
import { createAgent } from "./service";

// The quickstart's demo agents for Acme, created through the same service as the
// API (so they obey every rule). Idempotent: an agent that exists is left alone.

const demoAgents = (crmTools: string[], addressTools: string[]): AgentCreateBody[] => [
  {
    name: "Assistant support",
    instructions: "Tu réponds à partir des tickets fournis et des fiches clients du CRM. Tu ne modifies rien.",
    tools: ["create_chart", ...crmTools],
  },
  {
    // The managed-run demo (« Essayer »): model-sim's demo script reads C-1842, then previews an address change.
    name: "Changements d’adresse",
    instructions:
      "Tu traites les demandes de changement d’adresse des clients de CRM Acme : lis la fiche, propose le changement, réponds en français.",
    tools: addressTools,
  },
  {
    name: "Rapport hebdomadaire",
    instructions: "Chaque lundi, résume les commandes de la semaine passée.",
    temperature: 0.1,
    active: false,
    output_schema: {
      type: "object",
      properties: { summary: { type: "string" }, orders: { type: "integer" } },
      required: ["summary", "orders"],
    },
  },
];

export async function seedDemoAgents(organizationId: string): Promise<void> {
  const catalog = await catalogIndex(organizationId);
  const crmTools = [...catalog.values()]
    .filter((t) => t.kind === "mcp" && t.available && !t.writes_data && /_(get_customer|list_orders)$/.test(t.key))
    .map((t) => t.key);
  const addressTools = [...catalog.values()]
    .filter(
      (t) =>
        t.kind === "mcp" && t.available && /_(get_customer|preview_address_change|commit_address_change)$/.test(t.key),
    )
    .map((t) => t.key);
  for (const agent of demoAgents(crmTools, addressTools)) {
    const exists = await db.agent.findFirst({ where: { organizationId, name: agent.name }, select: { id: true } });
    if (!exists) await createAgent(organizationId, agent, SYSTEM_ACTOR);
  }
}
