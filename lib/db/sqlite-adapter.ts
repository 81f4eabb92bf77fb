import { PrismaBetterSQLite3 } from "@prisma/adapter-better-sqlite3";
import type BetterSqlite3 from "better-sqlite3";
import { captureSqlite, type SqliteConnection } from "./driver";

/** How long a statement waits for another process's write lock before failing. */
export const SQLITE_BUSY_TIMEOUT_MS = 10_000;

/** Statements kept prepared per connection (Prisma's SQL texts: a few hundred at most in practice). */
export const SQLITE_STATEMENT_CACHE = 500;

/**
 * What the Prisma adapter does with a statement it prepared: `bind` its values
 * once, then `run`, or read `columns()` and `raw().all()`; or `run` it bare
 * (`BEGIN`, `COMMIT`).
 */
interface AdapterStatement {
  readonly reader: boolean;
  run(): BetterSqlite3.RunResult;
  bind(values: unknown[]): {
    readonly reader: boolean;
    run(): BetterSqlite3.RunResult;
    columns(): BetterSqlite3.ColumnDefinition[];
    raw(): { all(): unknown[] };
  };
}

/**
 * Statements prepared once per SQL text and reused, for the Prisma adapter.
 * The adapter prepares every query anew (`prepare(sql).bind(values)`), which
 * parses and plans the SQL each time: a quarter of a small write's CPU in the
 * profiles (docs/hot-path-profile.md). better-sqlite3 binds values for good
 * with `bind`, so the cached statement is handed back behind an object that
 * passes the values at each execution instead. Every execution here is
 * synchronous, so one statement is never used by two queries at once.
 */
function cachedPreparer(prepare: (sql: string) => BetterSqlite3.Statement, size: number) {
  const cache = new Map<string, AdapterStatement>();
  return (sql: string): AdapterStatement => {
    const hit = cache.get(sql);
    if (hit) {
      // Least recently used first out: a hit moves to the end.
      cache.delete(sql);
      cache.set(sql, hit);
      return hit;
    }
    const statement = prepare(sql) as BetterSqlite3.Statement<unknown[]>;
    const reader = statement.reader;
    const wrapped: AdapterStatement = {
      reader,
      run: () => statement.run(),
      bind: (values) => ({
        reader,
        run: () => statement.run(values),
        columns: () => statement.columns(),
        raw: () => ({ all: () => statement.raw(true).all(values) }),
      }),
    };
    cache.set(sql, wrapped);
    if (cache.size > size) cache.delete(cache.keys().next().value as string);
    return wrapped;
  };
}

/**
 * The SQLite driver adapter, with transactions that take the write lock when
 * they begin (`BEGIN IMMEDIATE`) instead of at their first write, and its
 * statements prepared once (see `cachedPreparer`).
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
    const prepare = client.prepare.bind(client) as SqliteConnection["prepare"];
    // The hot statements run on this same connection (lib/db/driver.ts), prepared by better-sqlite3 itself.
    captureSqlite(client, prepare);
    const cached = cachedPreparer((sql) => prepare(sql === "BEGIN" ? "BEGIN IMMEDIATE" : sql), SQLITE_STATEMENT_CACHE);
    (client as unknown as { prepare: (sql: string) => AdapterStatement }).prepare = cached;
    return adapter;
  };
  return factory;
}
