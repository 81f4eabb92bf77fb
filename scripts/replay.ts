// npm run replay -- <tool>@<version> [--org <slug>]
// Checks every recorded call of a tool (traced runs) against one contract
// version's validation, in each organization that holds that version (or only
// the one named): no execution, no side effect. Prints one JSON report per
// organization; exits 1 when a version would refuse a recorded call, 2 on bad usage.
import { db } from "@/lib/db";
import { findContract } from "@/lib/contracts/registry";
import { replayCalls } from "@/lib/traces/replay";

function usage(message: string): never {
  console.error(`${message}\nusage: npm run replay -- <tool>@<version> [--org <slug>]`);
  process.exit(2);
}

async function main(): Promise<number> {
  const [target, flag, slug] = process.argv.slice(2);
  const match = /^([A-Za-z0-9_.-]{1,200})@([0-9]{1,9})$/.exec(target ?? "");
  if (!match) usage("Name a tool and a version, e.g. mcp_1_get_customer@2.");
  if (flag !== undefined && (flag !== "--org" || !slug)) usage(`Unknown option ${flag}.`);
  const [, key, version] = match;
  const organizations = await db.organization.findMany({
    where: slug ? { slug } : {},
    select: { id: true, slug: true },
    orderBy: { slug: "asc" },
  });
  if (slug && organizations.length === 0) usage(`No organization ${slug}.`);
  let refused = 0;
  let found = 0;
  for (const organization of organizations) {
    const registered = await findContract(organization.id, key, Number(version));
    if (!registered) continue;
    found += 1;
    const report = await replayCalls(organization.id, registered.contract);
    refused += report.refused;
    console.log(JSON.stringify({ organization: organization.slug, ...report }, null, 2));
  }
  if (found === 0) usage(`No organization holds ${key}@${version}.`);
  return refused > 0 ? 1 : 0;
}

main()
  .then((code) => process.exit(code))
  .catch((error) => {
    console.error(error);
    process.exit(1);
  });
