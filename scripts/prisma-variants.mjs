// Writes the two provider variants of the Prisma schema from prisma/schema.base.prisma.
// With --check, exits 1 when a committed variant differs from what the source gives.
import { readFileSync, writeFileSync, existsSync } from "node:fs";
import { fileURLToPath } from "node:url";
import path from "node:path";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
export const providers = {
  sqlite: { provider: "sqlite", output: "../../lib/db/generated/sqlite" },
  postgresql: { provider: "postgresql", output: "../../lib/db/generated/postgresql" },
};

export function variant(name) {
  const source = readFileSync(path.join(root, "prisma/schema.base.prisma"), "utf8");
  const { provider, output } = providers[name];
  const header = "// GENERATED from prisma/schema.base.prisma by scripts/prisma-variants.mjs — do not edit.\n";
  return header + source.replace("__PROVIDER__", provider).replace("__OUTPUT__", output);
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const check = process.argv.includes("--check");
  let stale = false;
  for (const name of Object.keys(providers)) {
    const file = path.join(root, "prisma", name, "schema.prisma");
    const wanted = variant(name);
    const current = existsSync(file) ? readFileSync(file, "utf8") : "";
    if (current === wanted) continue;
    if (check) {
      console.error(`prisma/${name}/schema.prisma is stale: run npm run db:schema`);
      stale = true;
    } else {
      writeFileSync(file, wanted);
      console.log(`wrote prisma/${name}/schema.prisma`);
    }
  }
  process.exit(stale ? 1 : 0);
}
