import { execFileSync, spawnSync } from "node:child_process";
import { readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";

const providers = ["sqlite", "postgresql"] as const;
const urls = { sqlite: "file:./data/prisma-cli.sqlite", postgresql: "postgresql://postgres@127.0.0.1:5432/postgres" };
const migrations = (provider: string) =>
  readdirSync(path.join("prisma", provider, "migrations"))
    .filter((d) => /^\d{14}_/.test(d))
    .sort();

describe("the two Prisma variants", () => {
  it("are exactly what the schema source gives", () => {
    const result = spawnSync(process.execPath, ["scripts/prisma-variants.mjs", "--check"], { encoding: "utf8" });
    expect(result.stderr).toBe("");
    expect(result.status).toBe(0);
  });

  it("have the same migrations, in the same order", () => {
    expect(migrations("sqlite")).toEqual(migrations("postgresql"));
    expect(migrations("sqlite").length).toBeGreaterThan(0);
  });

  it.each(providers)(
    "%s: the last migration's schema is the current schema (no change left without a migration)",
    (provider) => {
      const last = migrations(provider).at(-1)!;
      const snapshot = readFileSync(path.join("prisma", provider, "migrations", last, "schema.prisma"), "utf8");
      const current = readFileSync(path.join("prisma", provider, "schema.prisma"), "utf8");
      expect(snapshot).toBe(current);
      // And Prisma itself sees no difference between the migrated schema and the current one.
      const diff = execFileSync(
        process.execPath,
        [
          "node_modules/prisma/build/index.js",
          "migrate",
          "diff",
          "--config",
          `prisma/${provider}/prisma.config.ts`,
          "--from-schema-datamodel",
          path.join("prisma", provider, "migrations", last, "schema.prisma"),
          "--to-schema-datamodel",
          path.join("prisma", provider, "schema.prisma"),
          "--script",
        ],
        {
          env: { ...process.env, DATABASE_URL: urls[provider] },
          encoding: "utf8",
          stdio: ["ignore", "pipe", "ignore"],
        },
      );
      expect(diff).toContain("This is an empty migration");
    },
  );
});
