// npm run db:seed — reference data, then the quickstart's demo data. Idempotent.
import { seedDemoTenants, seedReferenceData, DEMO_PASSWORD, demoMembers } from "@/lib/tenancy/seed";
import { db } from "@/lib/db";
import { seedDemoConnector } from "@/lib/mcp/seed";
import { seedPolicies } from "@/lib/policies/seed";
import { seedDemoDataBases } from "@/lib/data/seed";
import { seedDemoAgents } from "@/lib/agents/seed";
import { seedDemoWidget } from "@/lib/widgets/seed";
import { DEMO_SLUGS } from "@/lib/tenancy/organizations";
import { seedDemoBoutique } from "./seed-boutique";

async function main() {
  await seedReferenceData();
  if (process.argv.includes("--reference-only")) {
    console.log("Reference data (plans, models) is up to date.");
    return;
  }
  // Demo people with a public password must never land next to a real organization's data.
  const real = await db.organization.findMany({
    where: { slug: { notIn: [...DEMO_SLUGS] } },
    select: { name: true },
    take: 3,
  });
  if (real.length > 0 && !process.argv.includes("--alongside-real-organizations")) {
    console.error(
      `Refusing to seed the demo: this database already holds real organizations (${real.map((o) => o.name).join(", ")}…); start without the demo (GUICHET_SEED_DEMO=0) or use another DATABASE_URL.`,
    );
    process.exitCode = 2;
    return;
  }
  const { demoKey, orgs } = await seedDemoTenants();
  await seedDemoConnector(orgs.acme.id);
  await seedPolicies();
  await seedDemoDataBases(orgs.acme.id);
  await seedDemoAgents(orgs.acme.id);
  await seedDemoWidget(orgs.acme.id);
  await seedDemoBoutique(orgs.acme.id);
  console.log("Demo data is ready.");
  console.log(`  Logins (password ${DEMO_PASSWORD}): ${demoMembers.map((m) => m.email).join(", ")}`);
  console.log(`  Demo API key for Acme (also in data/demo-api-key): ${demoKey}`);
}

main()
  .catch((error) => {
    console.error(error);
    process.exitCode = 1;
  })
  .finally(() => db.$disconnect());
