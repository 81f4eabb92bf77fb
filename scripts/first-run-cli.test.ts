import { spawnSync } from "node:child_process";
import { randomBytes } from "node:crypto";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import pg from "pg";
import { afterAll, describe, expect, it } from "vitest";

// `npm run setup` (the headless first run) and the migration runner on a
// PostgreSQL database that does not exist yet. Real processes, real databases.

const dir = mkdtempSync(path.join(tmpdir(), "guichet-setup-"));
const admin = process.env.TEST_PG_ADMIN_URL ?? "postgresql://postgres@127.0.0.1:5432/postgres";
const created: string[] = [];
afterAll(async () => {
  rmSync(dir, { recursive: true, force: true });
  const client = new pg.Client({ connectionString: admin });
  await client.connect();
  for (const name of created) await client.query(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`);
  await client.end();
});

function setup(args: string[], options: { input?: string; env?: Record<string, string>; db: string }) {
  const result = spawnSync(
    process.execPath,
    ["node_modules/tsx/dist/cli.mjs", "--conditions=react-server", "scripts/create-organization.ts", ...args],
    {
      input: options.input ?? "",
      encoding: "utf8",
      env: { ...process.env, DATABASE_URL: options.db, GUICHET_DATA_DIR: dir, ...options.env },
    },
  );
  return { status: result.status, output: `${result.stdout}${result.stderr}` };
}

const pgUrl = (name: string) => Object.assign(new URL(admin), { pathname: `/${name}` }).toString();

describe("npm run setup", () => {
  it("creates the first organization with the password from standard input, then refuses a second time", () => {
    const db = `file:${path.join(dir, "stdin.sqlite")}`;
    const first = setup(["--organization", "Mutuelle Bréhat", "--email", "camille@brehat.example"], {
      input: "une phrase de passe longue\n",
      db,
    });
    expect(first.output).toContain('Created the organization "Mutuelle Bréhat"');
    expect(first.status).toBe(0);
    const second = setup(["--organization", "Autre", "--email", "autre@brehat.example"], {
      input: "une phrase de passe longue\n",
      db,
    });
    expect(second.status).toBe(2);
    expect(second.output).toContain("already_set_up");
  }, 120_000);

  it("takes GUICHET_SETUP_PASSWORD, and refuses a password argument or a weak password without creating anything", () => {
    const db = `file:${path.join(dir, "env.sqlite")}`;
    const argv = setup(["--organization", "X", "--email", "x@x.example", "--password", "une phrase de passe longue"], {
      db,
    });
    expect(argv.status).toBe(2);
    expect(argv.output).toContain("never an argument");
    const weak = setup(["--organization", "X", "--email", "x@x.example"], { input: "court\n", db });
    expect(weak.status).toBe(2);
    expect(weak.output).toContain("password");
    const ok = setup(["--organization", "Par variable", "--email", "env@x.example", "--name", "Env"], {
      env: { GUICHET_SETUP_PASSWORD: "une phrase de passe longue" },
      db,
    });
    expect(ok.output).toContain('Created the organization "Par variable"');
    expect(ok.status).toBe(0);
  }, 120_000);
});

describe("migrations on a PostgreSQL database that does not exist", () => {
  it("creates it when the role may", async () => {
    const name = `guichet_missing_${randomBytes(4).toString("hex")}`;
    created.push(name);
    const result = spawnSync(process.execPath, ["scripts/migrate.mjs"], {
      encoding: "utf8",
      env: { ...process.env, DATABASE_URL: pgUrl(name) },
    });
    expect(result.stdout).toContain(`created the PostgreSQL database "${name}"`);
    expect(result.status).toBe(0);
    const client = new pg.Client({ connectionString: pgUrl(name) });
    await client.connect();
    const { rows } = await client.query(`SELECT count(*)::int AS n FROM "_prisma_migrations"`);
    await client.end();
    expect(rows[0].n).toBeGreaterThan(5);
  }, 60_000);

  it("otherwise says in one line what to run, without a stack trace", async () => {
    const role = `guichet_nocreate_${randomBytes(3).toString("hex")}`;
    const client = new pg.Client({ connectionString: admin });
    await client.connect();
    await client.query(`CREATE ROLE "${role}" LOGIN NOCREATEDB`);
    try {
      const name = `guichet_missing_${randomBytes(4).toString("hex")}`;
      const url = Object.assign(new URL(pgUrl(name)), { username: role }).toString();
      const result = spawnSync(process.execPath, ["scripts/migrate.mjs"], {
        encoding: "utf8",
        env: { ...process.env, DATABASE_URL: url },
      });
      expect(result.status).toBe(2);
      const lines = result.stderr.trim().split("\n");
      expect(lines).toHaveLength(1);
      expect(lines[0]).toContain(`createdb`);
      expect(lines[0]).toContain(name);
      expect(result.stderr).not.toMatch(/\n\s+at /);
      const exists = await client.query(`SELECT 1 FROM pg_database WHERE datname = $1`, [name]);
      expect(exists.rowCount).toBe(0);
    } finally {
      await client.query(`DROP ROLE IF EXISTS "${role}"`);
      await client.end();
    }
  }, 60_000);
});
