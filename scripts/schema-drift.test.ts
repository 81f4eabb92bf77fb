import { spawnSync } from "node:child_process";
import { existsSync, readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";

const providers = ["sqlite", "postgresql"] as const;
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

  it.each(providers)("%s: keeps one schema snapshot, beside the migrations, none inside them", (provider) => {
    const copies = migrations(provider).filter((name) =>
      existsSync(path.join("prisma", provider, "migrations", name, "schema.prisma")),
    );
    expect(copies).toEqual([]);
  });

  // The migrations are written by diffing this snapshot against the schema
  // (scripts/db-new-migration.mjs), which then moves the snapshot forward: a
  // schema edited without a migration leaves the two apart.
  it.each(providers)(
    "%s: the schema the migrations build is the current schema (no change left without a migration)",
    (provider) => {
      const snapshot = readFileSync(path.join("prisma", provider, "migrations", "schema.prisma"), "utf8");
      const current = readFileSync(path.join("prisma", provider, "schema.prisma"), "utf8");
      expect(snapshot).toBe(current);
    },
  );
});
