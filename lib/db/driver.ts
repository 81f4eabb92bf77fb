import "server-only";
import { createHash } from "node:crypto";
import type BetterSqlite3 from "better-sqlite3";
import type { Pool, QueryResultRow } from "pg";
import { env } from "@/lib/env";

// The driver under Prisma, for the few statements on the path of nearly every
// request (the run a tool call is made in, an agent, a tool call's step and
// counters, PostgreSQL's cache versions). A Prisma query, even a raw one,
// goes through its query compiler (WebAssembly), its interpreter and its
// tracing spans, most of a small query's cost on both databases (the figures
// are in the README, « Why some statements are written by hand »).
//
// The statements run on Prisma's own connection (SQLite) or pool
// (PostgreSQL), captured when Prisma connects (lib/db/index.ts): what they see
// and when they commit is what a Prisma query outside a transaction gets.
// Until Prisma has connected (the process's first query), nothing is
// captured and the callers use Prisma.
//
// Values come back as Prisma returns them: JSON parsed, booleans as booleans,
// dates as Date (PostgreSQL's `timestamp` columns hold UTC, as Prisma writes them).

type SqliteStatement = BetterSqlite3.Statement<unknown[], Record<string, unknown>>;
export type SqliteConnection = BetterSqlite3.Database;

// One database client per process (lib/db/index.ts), whichever bundle of the build (the instrumentation
// hook's, the routes') loads this module: what it captured is kept on the process, for all of them.
const captured = ((globalThis as Record<symbol, unknown>)[Symbol.for("guichet.dbDriver")] ??= {
  sqlite: null,
  sqlitePrepare: null,
  pg: null,
}) as { sqlite: SqliteConnection | null; sqlitePrepare: SqliteConnection["prepare"] | null; pg: Pool | null };

/**
 * Called by lib/db/index.ts when Prisma opens its connection (SQLite) or its pool (PostgreSQL). On SQLite,
 * `prepare` is better-sqlite3's own (the adapter's `prepare` answers cached statements of its own shape,
 * lib/db/sqlite-adapter.ts).
 */
export function captureSqlite(connection: SqliteConnection, prepare: SqliteConnection["prepare"]) {
  captured.sqlite = connection;
  captured.sqlitePrepare = prepare;
  sqliteStatements.clear();
}
export function capturePgPool(pool: Pool) {
  captured.pg = pool;
}

/** One statement and its values: `$1`, `$2`… in the text, as on PostgreSQL, each once and in order (SQLite gets `?`). */
export interface DriverStatement {
  sql: string;
  values: unknown[];
}

// ---------------------------------------------------------------- SQLite

interface PreparedSqlite {
  statement: SqliteStatement;
  /** Columns whose stored text or integer becomes a JSON value, a boolean or a Date. */
  json: string[];
  booleans: string[];
  dates: string[];
}
const sqliteStatements = new Map<string, PreparedSqlite>();

function prepareSqlite(connection: SqliteConnection, sql: string): PreparedSqlite {
  let prepared = sqliteStatements.get(sql);
  if (!prepared) {
    const prepare = (captured.sqlitePrepare ?? connection.prepare.bind(connection)) as SqliteConnection["prepare"];
    const statement = prepare<unknown[], Record<string, unknown>>(sql.replace(/\$\d+/g, "?"));
    const columns = statement.reader ? statement.columns() : [];
    // The declared types Prisma's migrations give its JSON, Boolean and DateTime fields.
    const typed = (pattern: RegExp) => columns.filter((c) => pattern.test(c.type ?? "")).map((c) => c.name);
    prepared = {
      statement,
      json: typed(/^JSONB?$/i),
      booleans: typed(/^BOOLEAN$/i),
      dates: typed(/^(DATETIME|DATE|TIMESTAMP)$/i),
    };
    sqliteStatements.set(sql, prepared);
  }
  return prepared;
}

/** Values as the Prisma adapter binds them: dates in ISO 8601, booleans as 0 or 1. */
function sqliteValue(value: unknown): unknown {
  if (value instanceof Date) return value.toISOString().replace("Z", "+00:00");
  if (typeof value === "boolean") return value ? 1 : 0;
  return value;
}

function sqliteRows(connection: SqliteConnection, statement: DriverStatement): Record<string, unknown>[] {
  const { statement: prepared, json, booleans, dates } = prepareSqlite(connection, statement.sql);
  const rows = prepared.all(...statement.values.map(sqliteValue));
  for (const row of rows) {
    // Prisma's connection reads integers as BigInt; the hot statements read Int fields only, which Prisma gives as numbers.
    for (const c in row) if (typeof row[c] === "bigint") row[c] = Number(row[c]);
    for (const c of json) if (typeof row[c] === "string") row[c] = JSON.parse(row[c]);
    for (const c of booleans) if (row[c] !== null) row[c] = Boolean(row[c]);
    for (const c of dates) if (row[c] !== null) row[c] = new Date(row[c] as string | number);
  }
  return rows;
}

// ---------------------------------------------------------------- PostgreSQL

const TIMESTAMP_OID = 1114;
let pgTypes: { getTypeParser(oid: number, format?: string): unknown } | null = null;

/** pg's parsers, but `timestamp` (without time zone) read as UTC whatever the process's time zone. */
async function pgTypeParsers() {
  if (!pgTypes) {
    const { types } = (await import("pg")).default;
    pgTypes = {
      getTypeParser: (oid: number, format?: string) =>
        oid === TIMESTAMP_OID
          ? (text: string) => new Date(`${text.replace(" ", "T")}Z`)
          : types.getTypeParser(oid, format as "text"),
    };
  }
  return pgTypes;
}

/**
 * Prepared once per connection under a name of its own (PostgreSQL then skips parsing and planning). The
 * name is the text's digest, not a counter: every bundle that loads this module shares the one pool, and
 * counters kept per module instance gave two statements one name ("Prepared statements must be unique").
 */
const pgNames = new Map<string, string>();
function pgName(sql: string): string {
  let name = pgNames.get(sql);
  if (!name) pgNames.set(sql, (name = `guichet_hot_${createHash("sha256").update(sql).digest("hex").slice(0, 24)}`));
  return name;
}

/** Dates as UTC ISO text: a `timestamp` column keeps the instant Prisma would have written. */
function pgValue(value: unknown): unknown {
  return value instanceof Date ? value.toISOString() : value;
}

async function pgRows(pool: Pool, statement: DriverStatement): Promise<QueryResultRow[]> {
  const result = await pool.query({
    name: pgName(statement.sql),
    text: statement.sql,
    values: statement.values.map(pgValue),
    types: (await pgTypeParsers()) as never,
  });
  return result.rows;
}

// ----------------------------------------------------------------

/** A Prisma `select`'s fields as a quoted column list, for a driver statement that answers the same row. */
function columnList(select: Record<string, unknown>): string {
  return Object.keys(select)
    .map((column) => `"${column}"`)
    .join(", ");
}

const firstRowStatements = new Map<string, string>();

/**
 * The one row a Prisma `findFirst({ where, select })` with equality filters answers, read on the
 * driver: the domains name the table, the select and the filter, never SQL. `viaPrisma` makes the
 * same query through Prisma, for when the driver cannot serve it (see `driverRows`) — callers
 * inside a Prisma transaction call it directly.
 */
export function findFirstOnDriver<T>(
  table: string,
  select: Record<string, unknown>,
  where: Record<string, string | number>,
  viaPrisma: () => Promise<T | null>,
): Promise<T | null> {
  const columns = Object.keys(where);
  const key = `${table}|${Object.keys(select).join(",")}|${columns.join(",")}`;
  let sql = firstRowStatements.get(key);
  if (!sql) {
    const filter = columns.map((column, index) => `"${column}" = $${index + 1}`).join(" AND ");
    sql = `SELECT ${columnList(select)} FROM "${table}" WHERE ${filter} LIMIT 1`;
    firstRowStatements.set(key, sql);
  }
  return driverFirst({ sql, values: Object.values(where) }, viaPrisma);
}

/** The first row of a read on the driver, or what `prisma()` answers when the driver cannot serve it (see `driverRows`). */
export async function driverFirst<T>(statement: DriverStatement, prisma: () => Promise<T | null>): Promise<T | null> {
  const rows = await driverRows<T>(statement);
  return rows ? (rows[0] ?? null) : prisma();
}

/**
 * The rows of a read on the driver, or null when the caller must ask Prisma: not connected yet, or a
 * Prisma transaction is open on the SQLite connection (a read now would see its uncommitted writes,
 * where Prisma makes other queries wait for it to end).
 */
export async function driverRows<T>(statement: DriverStatement): Promise<T[] | null> {
  if (captured.sqlite) return captured.sqlite.inTransaction ? null : (sqliteRows(captured.sqlite, statement) as T[]);
  if (captured.pg) return (await pgRows(captured.pg, statement)) as T[];
  return null;
}

// ---------------------------------------------------------------- Records

// A tool call's step and its counters are the record of a call that already
// happened, written once per call. Their commit is visible to every reader at
// once; what `recordWrite` spares is waiting, before the call answers, for the
// disk to confirm it. On PostgreSQL they commit on connections of their own
// with `synchronous_commit` off: the WAL writer flushes them within a few
// hundred milliseconds, and any ordinary commit made after them (a proposal,
// an approval, an operation, a run's status) flushes them first. A crash of
// the database server or its machine in that window can lose the last steps
// and counters, whole, never half of one, and nothing else. SQLite gives every
// commit here the same guarantee (WAL with synchronous=NORMAL, better-sqlite3's
// default). GUICHET_DURABLE_RECORDS=1 makes them wait for the disk too.

let recordPool: Pool | null = null;

async function recordsPool(): Promise<Pool> {
  if (!recordPool) {
    const { Pool } = (await import("pg")).default;
    recordPool = new Pool({
      connectionString: env.databaseUrl,
      options: "-c synchronous_commit=off",
      max: 2,
      // Never what keeps a process alive (a script, a test) once its work is done.
      allowExitOnIdle: true,
    });
    // An idle connection's error (the server restarting) is the next query's to report.
    recordPool.on("error", () => {});
  }
  return recordPool;
}

/**
 * Writes the record of something that already happened (see above): as `driverWrite`, on the records'
 * connections on PostgreSQL. False when the caller must use Prisma.
 */
export async function recordWrite(statements: DriverStatement[]): Promise<boolean> {
  if (!captured.pg || env.GUICHET_DURABLE_RECORDS === "1") return driverWrite(statements);
  if (statements.length !== 1) throw new Error("recordWrite: one statement at a time on PostgreSQL");
  await pgRows(await recordsPool(), statements[0]);
  return true;
}

/** What `sqliteTransaction`'s work may do: write (answers the rows changed) and read. */
export interface SqliteTransaction {
  run(statement: DriverStatement): number;
  rows<T>(statement: DriverStatement): T[];
}

/** Returned by `sqliteTransaction`'s work: nothing it did is kept, and the caller does it through Prisma. */
export const USE_PRISMA = Symbol("use Prisma");

/**
 * Runs `work` in one transaction on SQLite's connection, synchronously: nothing else runs on the
 * connection meanwhile, and the transaction takes the write lock when it begins (BEGIN IMMEDIATE, as
 * Prisma's transactions here, lib/db/sqlite-adapter.ts), so another process's writer is waited for.
 * Commits what `work` returns; rolls back when it throws (and rethrows) or returns USE_PRISMA. Null when
 * the caller must use Prisma: not SQLite, not connected yet, a Prisma transaction open, or USE_PRISMA.
 */
export function sqliteTransaction<T>(work: (tx: SqliteTransaction) => T | typeof USE_PRISMA): T | null {
  const connection = captured.sqlite;
  if (!connection || connection.inTransaction) return null;
  const tx: SqliteTransaction = {
    run: (statement) =>
      (
        prepareSqlite(connection, statement.sql).statement.run(...statement.values.map(sqliteValue)) as {
          changes: number;
        }
      ).changes,
    rows: <R>(statement: DriverStatement) => sqliteRows(connection, statement) as R[],
  };
  prepareSqlite(connection, "BEGIN IMMEDIATE").statement.run();
  try {
    const result = work(tx);
    prepareSqlite(connection, result === USE_PRISMA ? "ROLLBACK" : "COMMIT").statement.run();
    return result === USE_PRISMA ? null : result;
  } catch (error) {
    if (connection.inTransaction) prepareSqlite(connection, "ROLLBACK").statement.run();
    throw error;
  }
}

/**
 * Writes `statements` in one transaction on SQLite (synchronously, so nothing
 * else runs on the connection meanwhile), or the one statement on PostgreSQL.
 * False when the caller must use Prisma: not connected yet, or a Prisma
 * transaction is open on the SQLite connection (statements run now would join it).
 */
export async function driverWrite(statements: DriverStatement[]): Promise<boolean> {
  if (captured.sqlite) {
    const done = sqliteTransaction((tx) => {
      for (const s of statements) tx.run(s);
      return true;
    });
    return done === true;
  }
  if (captured.pg) {
    if (statements.length !== 1) throw new Error("driverWrite: one statement at a time on PostgreSQL");
    await pgRows(captured.pg, statements[0]);
    return true;
  }
  return false;
}

/**
 * One statement on the records' connections (PostgreSQL, see above), answering its rows; null when the
 * caller must use Prisma (SQLite, not connected yet, or GUICHET_DURABLE_RECORDS=1).
 */
export async function recordRows<T>(statement: DriverStatement): Promise<T[] | null> {
  if (!captured.pg || env.GUICHET_DURABLE_RECORDS === "1") return null;
  return (await pgRows(await recordsPool(), statement)) as T[];
}

// ---------------------------------------------------------------- Transactions

/**
 * A transaction written once for both databases: a generator that yields its statements one by one
 * and receives each one's rows (none for a statement that returns none). It runs synchronously on
 * SQLite's connection (`sqliteTransaction`: nothing else runs on the connection meanwhile, and the write
 * lock is held from the start), and on one connection of Prisma's pool on PostgreSQL (`BEGIN` … `COMMIT`,
 * read committed as Prisma's transactions here: each statement sees what committed before it). What the
 * generator returns is committed; what it throws rolls back and is rethrown, a database error as the
 * driver's own (see `isDriverUniqueViolation`). Null when the caller must use Prisma: not connected yet,
 * a Prisma transaction open on the SQLite connection, or the work returned USE_PRISMA (nothing kept).
 */
export type DriverWork<T> = Generator<DriverStatement, T, Record<string, unknown>[]>;

export async function driverTransaction<T>(work: () => DriverWork<T | typeof USE_PRISMA>): Promise<T | null> {
  const connection = captured.sqlite;
  if (connection) {
    if (connection.inTransaction) return null;
    return sqliteTransaction((tx) => {
      const steps = work();
      let step = steps.next([]);
      while (!step.done) {
        const statement = step.value;
        const reader = prepareSqlite(connection, statement.sql).statement.reader;
        step = steps.next(reader ? tx.rows(statement) : (tx.run(statement), []));
      }
      return step.value;
    });
  }
  const pool = captured.pg;
  if (!pool) return null;
  const client = await pool.connect();
  let broken = false;
  try {
    await client.query("BEGIN");
    try {
      const steps = work();
      let step = steps.next([]);
      while (!step.done) {
        const statement = step.value;
        const result = await client.query({
          name: pgName(statement.sql),
          text: statement.sql,
          values: statement.values.map(pgValue),
          types: (await pgTypeParsers()) as never,
        });
        step = steps.next(result.rows);
      }
      await client.query(step.value === USE_PRISMA ? "ROLLBACK" : "COMMIT");
      return step.value === USE_PRISMA ? null : step.value;
    } catch (error) {
      await client.query("ROLLBACK").catch(() => (broken = true));
      throw error;
    }
  } finally {
    // A connection that could not roll back is not given back to the pool.
    client.release(broken);
  }
}

/** A unique constraint refused a driver statement (better-sqlite3's or pg's error), as Prisma's P2002 says. */
export function isDriverUniqueViolation(error: unknown): boolean {
  const code = typeof error === "object" && error !== null ? (error as { code?: unknown }).code : undefined;
  return code === "SQLITE_CONSTRAINT_UNIQUE" || code === "23505";
}
