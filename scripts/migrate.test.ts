import { spawnSync } from "node:child_process";
import { mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import BetterSqlite3 from "better-sqlite3";
import { afterAll, describe, expect, it } from "vitest";

// The SQLite migration runner on a database that already holds data: Prisma
// rebuilds a table by dropping it, and the runner applies each migration in a
// transaction, where Prisma's own `PRAGMA foreign_keys=OFF` does nothing — so a
// rebuilt parent table used to cascade-delete its children's rows.

type Sqlite = BetterSqlite3.Database;
const openSqlite = (file: string) => new BetterSqlite3(file);

const dir = mkdtempSync(path.join(tmpdir(), "guichet-migrate-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const migrations = readdirSync(path.join("prisma", "sqlite", "migrations"))
  .filter((d) => /^\d{14}_/.test(d))
  .sort();
const REBUILD_OF_RUN = migrations.findIndex((name) => name.endsWith("_keep_runs_of_deleted_agents"));

function applyUpTo(db: Sqlite, count: number): void {
  db.exec(`CREATE TABLE "_prisma_migrations" ("id" TEXT PRIMARY KEY NOT NULL, "checksum" TEXT NOT NULL, "finished_at" DATETIME,
    "migration_name" TEXT NOT NULL, "logs" TEXT, "rolled_back_at" DATETIME, "started_at" DATETIME NOT NULL DEFAULT current_timestamp,
    "applied_steps_count" INTEGER UNSIGNED NOT NULL DEFAULT 0)`);
  for (const name of migrations.slice(0, count)) {
    db.exec(readFileSync(path.join("prisma", "sqlite", "migrations", name, "migration.sql"), "utf8"));
    db.prepare(
      `INSERT INTO _prisma_migrations (id, checksum, finished_at, migration_name) VALUES (?, 'arranged', ?, ?)`,
    ).run(name, Date.now(), name);
  }
}

describe("scripts/migrate.mjs on SQLite", () => {
  it("keeps every run and step through the rebuild of Run, whose agent is then nulled on delete", () => {
    expect(REBUILD_OF_RUN).toBeGreaterThan(0);
    const file = path.join(dir, "before.sqlite");
    const db = openSqlite(file);
    applyUpTo(db, REBUILD_OF_RUN);
    const now = Date.now();
    db.prepare(
      `INSERT INTO Plan (id, name, features, storageBytes, maxFiles, maxAgents, maxFileBytes, fileTtlDays) VALUES ('p', 'p', '[]', 1, 1, 1, 1, 1)`,
    ).run();
    db.prepare(`INSERT INTO Organization (id, slug, name, planId, createdAt) VALUES ('org', 'org', 'Org', 'p', ?)`).run(
      now,
    );
    db.prepare(
      `INSERT INTO Agent (id, organizationId, name, temperatureCenti, tools, clientTools, createdAt, updatedAt) VALUES ('agt', 'org', 'A', 30, '[]', '[]', ?, ?)`,
    ).run(now, now);
    for (const run of ["run_a", "run_b"]) {
      db.prepare(
        `INSERT INTO Run (id, organizationId, agentId, status, capabilities, instructions, capabilitySet, warnings, fileIds, expiresAt, createdAt, updatedAt)
        VALUES (?, 'org', 'agt', 'active', 'read', '', '[]', '[]', '[]', ?, ?, ?)`,
      ).run(run, now, now, now);
      db.prepare(
        `INSERT INTO Step (id, runId, organizationId, tool, status, durationMs, argumentsSha256, createdAt) VALUES (?, ?, 'org', 'calculate', 'ok', 1, 'h', ?)`,
      ).run(`step_${run}`, run, now);
    }
    db.close();

    const result = spawnSync(process.execPath, ["scripts/migrate.mjs"], {
      env: { ...process.env, DATABASE_URL: `file:${file}` },
      encoding: "utf8",
    });
    expect(result.stderr).toBe("");
    expect(result.status).toBe(0);
    expect(result.stdout).toContain(migrations[REBUILD_OF_RUN]);

    const after = openSqlite(file);
    try {
      expect(after.pragma("foreign_keys", { simple: true })).toBe(1);
      expect(after.prepare(`SELECT id, agentId FROM Run ORDER BY id`).all()).toEqual([
        { id: "run_a", agentId: "agt" },
        { id: "run_b", agentId: "agt" },
      ]);
      expect(after.prepare(`SELECT id FROM Step ORDER BY id`).all()).toEqual([
        { id: "step_run_a" },
        { id: "step_run_b" },
      ]);
      after.prepare(`DELETE FROM Agent WHERE id = 'agt'`).run();
      expect(after.prepare(`SELECT id, agentId FROM Run ORDER BY id`).all()).toEqual([
        { id: "run_a", agentId: null },
        { id: "run_b", agentId: null },
      ]);
      expect(after.prepare(`SELECT COUNT(*) AS n FROM Step`).get()).toEqual({ n: 2 });
    } finally {
      after.close();
    }
  });
});
