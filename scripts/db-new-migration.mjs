// npm run db:new-migration -- <name>
// Writes a migration for each provider by diffing the schema the migrations
// build (prisma/<provider>/migrations/schema.prisma, one snapshot kept beside
// them) against the current variant (schema-to-schema: no shadow database,
// which `prisma migrate dev` would need and cannot get here), then moves the
// snapshot forward.
import { execFileSync } from "node:child_process";
import { existsSync, mkdirSync, copyFileSync, writeFileSync } from "node:fs";
import path from "node:path";

const name = process.argv[2];
if (!name || !/^[a-z0-9_]+$/.test(name)) {
  console.error("usage: npm run db:new-migration -- <snake_case_name>");
  process.exit(2);
}
execFileSync("node", ["scripts/prisma-variants.mjs"], { stdio: "inherit" });
const stamp = new Date().toISOString().replace(/[-:T]/g, "").slice(0, 14);
const urls = { sqlite: "file:./data/prisma-cli.sqlite", postgresql: "postgresql://postgres@127.0.0.1:5432/postgres" };

for (const provider of ["sqlite", "postgresql"]) {
  const dir = path.join("prisma", provider, "migrations");
  mkdirSync(dir, { recursive: true });
  const snapshot = path.join(dir, "schema.prisma");
  const from = existsSync(snapshot) ? ["--from-schema-datamodel", snapshot] : ["--from-empty"];
  const sql = execFileSync(
    "npx",
    [
      "prisma",
      "migrate",
      "diff",
      "--config",
      `prisma/${provider}/prisma.config.ts`,
      ...from,
      "--to-schema-datamodel",
      `prisma/${provider}/schema.prisma`,
      "--script",
    ],
    { env: { ...process.env, DATABASE_URL: urls[provider] }, encoding: "utf8", stdio: ["ignore", "pipe", "ignore"] },
  );
  if (sql.includes("This is an empty migration")) {
    console.log(`${provider}: no change`);
    continue;
  }
  const target = path.join(dir, `${stamp}_${name}`);
  if (existsSync(target)) throw new Error(`${target} exists`);
  mkdirSync(target);
  writeFileSync(path.join(target, "migration.sql"), sql);
  copyFileSync(`prisma/${provider}/schema.prisma`, snapshot);
  console.log(`${provider}: wrote ${target}`);
}
