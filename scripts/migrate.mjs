// npm run db:migrate — applies prisma/<provider>/migrations in order, each in a
// transaction, and records them in Prisma's own _prisma_migrations table so a
// real `prisma migrate deploy` elsewhere agrees. Needed because migrate deploy
// through the JS engine fails on PostgreSQL (see ENV notes); used for SQLite too
// so both databases take the same path.
import { createHash, randomUUID } from "node:crypto";
import { readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { databaseUrl, providerOf } from "./db-url.mjs";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");

function pendingMigrations(provider, applied) {
  const dir = path.join(root, "prisma", provider, "migrations");
  return readdirSync(dir)
    .filter((d) => /^\d{14}_/.test(d))
    .sort()
    .filter((name) => !applied.has(name))
    .map((name) => {
      const sql = readFileSync(path.join(dir, name, "migration.sql"), "utf8");
      return { name, sql, checksum: createHash("sha256").update(sql).digest("hex") };
    });
}

async function migrateSqlite(url) {
  const { default: Database } = await import("better-sqlite3");
  const db = new Database(url.slice("file:".length));
  db.pragma("journal_mode = WAL");
  db.exec(`CREATE TABLE IF NOT EXISTS "_prisma_migrations" (
    "id" TEXT PRIMARY KEY NOT NULL, "checksum" TEXT NOT NULL, "finished_at" DATETIME,
    "migration_name" TEXT NOT NULL, "logs" TEXT, "rolled_back_at" DATETIME,
    "started_at" DATETIME NOT NULL DEFAULT current_timestamp, "applied_steps_count" INTEGER UNSIGNED NOT NULL DEFAULT 0)`);
  const applied = new Set(
    db
      .prepare(`SELECT migration_name FROM _prisma_migrations WHERE finished_at IS NOT NULL`)
      .all()
      .map((r) => r.migration_name),
  );
  const todo = pendingMigrations("sqlite", applied);
  for (const m of todo) {
    // Prisma rebuilds a SQLite table (create new, copy, DROP old, rename) under its own
    // `PRAGMA foreign_keys=OFF`, which SQLite ignores inside a transaction: with enforcement
    // on, dropping a parent table deletes its rows first and cascades to the children
    // (rebuilding Run would empty Step). So enforcement is off around the transaction,
    // and the migrated data must pass the foreign key check before it commits.
    db.pragma("foreign_keys = OFF");
    try {
      db.transaction(() => {
        db.exec(m.sql);
        const broken = db.pragma("foreign_key_check");
        if (broken.length > 0)
          throw new Error(
            `migration ${m.name} leaves ${broken.length} row(s) with a broken foreign key (first: ${JSON.stringify(broken[0])})`,
          );
        db.prepare(
          `INSERT INTO _prisma_migrations (id, checksum, finished_at, migration_name, applied_steps_count, started_at) VALUES (?, ?, ?, ?, 1, ?)`,
        ).run(randomUUID(), m.checksum, Date.now(), m.name, Date.now());
      })();
    } finally {
      db.pragma("foreign_keys = ON");
    }
  }
  db.close();
  return todo.map((m) => m.name);
}

/** Said in one line, without a stack trace: what stops the migration and what to run. */
export class MigrationRefused extends Error {}

/**
 * A DATABASE_URL naming a database that does not exist: created when the role may
 * (through the server's maintenance database), otherwise refused with the command to run.
 */
async function createMissingDatabase(pg, url) {
  const target = new URL(url);
  const name = decodeURIComponent(target.pathname.slice(1));
  const role = decodeURIComponent(target.username) || process.env.PGUSER || process.env.USER || "postgres";
  const maintenance = new URL(url);
  maintenance.pathname = "/postgres";
  const admin = new pg.Client({ connectionString: maintenance.toString() });
  try {
    await admin.connect();
    await admin.query(`CREATE DATABASE "${name.replace(/"/g, '""')}"`);
    console.log(`created the PostgreSQL database "${name}"`);
  } catch (error) {
    if (error.code === "42P04") return; // created meanwhile by another instance
    const host = `-h ${target.hostname}${target.port ? ` -p ${target.port}` : ""}`;
    throw new MigrationRefused(
      `The PostgreSQL database "${name}" does not exist and role "${role}" cannot create it (${error.message}): run \`createdb ${host} -U <a role allowed to create databases> -O ${role} ${name}\` (or CREATE DATABASE "${name}" OWNER "${role}";), then start again.`,
    );
  } finally {
    await admin.end().catch(() => {});
  }
}

async function connectPostgres(pg, url) {
  const client = new pg.Client({ connectionString: url });
  try {
    await client.connect();
    return client;
  } catch (error) {
    await client.end().catch(() => {});
    // 3D000: invalid_catalog_name, the database named in the URL does not exist.
    if (error.code !== "3D000") throw new MigrationRefused(`Cannot connect to PostgreSQL: ${error.message}.`);
  }
  await createMissingDatabase(pg, url);
  const client2 = new pg.Client({ connectionString: url });
  await client2.connect();
  return client2;
}

async function migratePostgres(url) {
  const { default: pg } = await import("pg");
  const client = await connectPostgres(pg, url);
  try {
    // One migrator at a time, even with several app instances starting together.
    await client.query("SELECT pg_advisory_lock(726354)");
    await client.query(`CREATE TABLE IF NOT EXISTS "_prisma_migrations" (
      "id" VARCHAR(36) PRIMARY KEY NOT NULL, "checksum" VARCHAR(64) NOT NULL, "finished_at" TIMESTAMPTZ,
      "migration_name" VARCHAR(255) NOT NULL, "logs" TEXT, "rolled_back_at" TIMESTAMPTZ,
      "started_at" TIMESTAMPTZ NOT NULL DEFAULT now(), "applied_steps_count" INTEGER NOT NULL DEFAULT 0)`);
    const { rows } = await client.query(`SELECT migration_name FROM _prisma_migrations WHERE finished_at IS NOT NULL`);
    const todo = pendingMigrations("postgresql", new Set(rows.map((r) => r.migration_name)));
    for (const m of todo) {
      await client.query("BEGIN");
      try {
        await client.query(m.sql);
        await client.query(
          `INSERT INTO _prisma_migrations (id, checksum, finished_at, migration_name, applied_steps_count) VALUES ($1, $2, now(), $3, 1)`,
          [randomUUID(), m.checksum, m.name],
        );
        await client.query("COMMIT");
      } catch (error) {
        await client.query("ROLLBACK");
        throw new Error(`migration ${m.name} failed: ${error.message}`);
      }
    }
    return todo.map((m) => m.name);
  } finally {
    await client.end();
  }
}

export async function migrate(url = databaseUrl()) {
  return providerOf(url) === "sqlite" ? migrateSqlite(url) : migratePostgres(url);
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const url = databaseUrl();
  try {
    const applied = await migrate(url);
    console.log(
      applied.length ? `applied ${applied.length} migration(s): ${applied.join(", ")}` : "database is up to date",
    );
  } catch (error) {
    if (!(error instanceof MigrationRefused)) throw error;
    console.error(error.message);
    process.exit(2);
  }
}
