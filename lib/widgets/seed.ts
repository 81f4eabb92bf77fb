import "server-only";
import { writeFileSync } from "node:fs";
import path from "node:path";
import { SYSTEM_ACTOR } from "@/lib/audit/record";
import { db } from "@/lib/db";
import { env } from "@/lib/env";
import { WidgetAppearance, WidgetLimits } from "./schemas";
import { createWidget } from "./service";

// The demo's widget: the address-change agent in a bubble on the demo shop page
// (`npm start` serves it on http://localhost:GUICHET_DEMO_SHOP_PORT). Idempotent;
// its public key is written to data/demo-widget-key for the shop page's snippet.

const DEMO_WIDGET = "Boutique de démonstration";

export async function seedDemoWidget(organizationId: string): Promise<void> {
  const agent = await db.agent.findFirst({ where: { organizationId, name: "Changements d’adresse" } });
  if (!agent) return;
  const shop = `http://localhost:${env.GUICHET_DEMO_SHOP_PORT}`;
  let widget = await db.widget.findFirst({ where: { organizationId, name: DEMO_WIDGET } });
  if (!widget)
    ({ widget } = await createWidget(
      organizationId,
      {
        agent: agent.id,
        name: DEMO_WIDGET,
        allowed_origins: [shop],
        identity: "anonymous",
        capabilities: "read_write",
        instructions: null,
        appearance: WidgetAppearance.parse({
          title: "Service client",
          greeting: "Bonjour ! Une question sur votre livraison ?",
          starter_prompts: ["Le client C-1842 a déménagé : livrez-le à son adresse de Lyon."],
        }),
        limits: WidgetLimits.parse({}),
        active: true,
      },
      SYSTEM_ACTOR,
    ));
  writeFileSync(path.join(env.dataDir, "demo-widget-key"), `${widget.publicKey}\n`);
}
