import { execFileSync } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import Database from "better-sqlite3";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { PrismaClient } from "./generated/sqlite/client";
import { sqliteAdapter } from "./sqlite-adapter";

// Another process writing to the same file, without waiting for any lock.
function writeFromAnotherProcess(path: string, value: string): "written" | "busy" {
  const script = `
    const db = new (require("better-sqlite3"))(process.argv[1], { timeout: 0 });
    try { db.prepare("INSERT INTO item (value) VALUES (?)").run(process.argv[2]); console.log("written"); }
    catch (error) { console.log(error.code === "SQLITE_BUSY" ? "busy" : String(error)); }`;
  return execFileSync(process.execPath, ["-e", script, path, value], { encoding: "utf8" }).trim() as "written" | "busy";
}

describe("sqliteAdapter", () => {
  let dir: string;
  let path: string;
  let prisma: PrismaClient;

  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), "guichet-sqlite-"));
    path = join(dir, "db.sqlite");
    const setup = new Database(path);
    setup.pragma("journal_mode = WAL");
    setup.exec("CREATE TABLE item (id INTEGER PRIMARY KEY, value TEXT NOT NULL)");
    setup.close();
    prisma = new PrismaClient({ adapter: sqliteAdapter(`file:${path}`) });
  });

  afterAll(async () => {
    await prisma.$disconnect();
    rmSync(dir, { recursive: true, force: true });
  });

  it("holds the write lock from the start of a transaction, so a read-then-write transaction commits", async () => {
    let outsider: string | undefined;
    await prisma.$transaction(async (tx) => {
      await tx.$queryRawUnsafe("SELECT count(*) FROM item");
      // With a deferred BEGIN the outsider's write would land here, and this
      // transaction's write below would fail with "database is locked".
      outsider = writeFromAnotherProcess(path, "outsider");
      await tx.$executeRawUnsafe("INSERT INTO item (value) VALUES ('inside')");
    });
    expect(outsider).toBe("busy");
    const rows = await prisma.$queryRawUnsafe<{ value: string }[]>("SELECT value FROM item ORDER BY id");
    expect(rows.map((row) => row.value)).toEqual(["inside"]);
  });

  it("lets another process write once the transaction has ended", async () => {
    await prisma.$transaction(async (tx) => tx.$queryRawUnsafe("SELECT 1"));
    expect(writeFromAnotherProcess(path, "after")).toBe("written");
  });
});
