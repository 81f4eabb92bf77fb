import { PrismaBetterSQLite3 } from "@prisma/adapter-better-sqlite3";
import { captureSqlite, type SqliteConnection } from "./driver";

/** How long a statement waits for another process's write lock before failing. */
export const SQLITE_BUSY_TIMEOUT_MS = 10_000;

/**
 * The SQLite driver adapter, with transactions that take the write lock when
 * they begin (`BEGIN IMMEDIATE`) instead of at their first write.
 *
 * The adapter opens transactions with a plain `BEGIN`. In WAL mode such a
 * transaction reads from a snapshot; if another process (a second instance, a
 * CLI, the test runner) commits a write before its own first write, SQLite
 * cannot upgrade it and answers "database is locked" at once, without waiting
 * for the busy timeout. Taking the lock up front makes the second writer wait
 * its turn instead. Within one process the adapter already runs one
 * transaction at a time, so nothing is serialized that was not already.
 */
export function sqliteAdapter(url: string, timeout = SQLITE_BUSY_TIMEOUT_MS): PrismaBetterSQLite3 {
  const factory = new PrismaBetterSQLite3({ url, timeout });
  const connect = factory.connect.bind(factory);
  factory.connect = async () => {
    const adapter = await connect();
    const client = (adapter as unknown as { client: SqliteConnection }).client;
    const prepare = client.prepare.bind(client);
    client.prepare = (sql: string) => prepare(sql === "BEGIN" ? "BEGIN IMMEDIATE" : sql);
    // The hot statements run on this same connection (lib/db/driver.ts).
    captureSqlite(client);
    return adapter;
  };
  return factory;
}
