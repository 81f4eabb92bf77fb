// better-sqlite3 ships no type declarations and @types/better-sqlite3 is not
// installed; this local facade types the small part the connector uses without
// declaring a global module (which would leak into the whole repository).
// eslint-disable-next-line @typescript-eslint/ban-ts-comment -- @ts-expect-error would break once types are installed
// @ts-ignore -- untyped CommonJS module
import BetterSqlite3 from "better-sqlite3";

export interface RunResult {
  changes: number;
  lastInsertRowid: number | bigint;
}

export interface Statement {
  run(...params: unknown[]): RunResult;
  get(...params: unknown[]): unknown;
  all(...params: unknown[]): unknown[];
}

export interface Transaction<F extends (...args: never[]) => unknown> {
  (...args: Parameters<F>): ReturnType<F>;
  deferred(...args: Parameters<F>): ReturnType<F>;
  immediate(...args: Parameters<F>): ReturnType<F>;
  exclusive(...args: Parameters<F>): ReturnType<F>;
}

export interface Database {
  readonly open: boolean;
  prepare(sql: string): Statement;
  exec(sql: string): Database;
  pragma(source: string): unknown;
  transaction<F extends (...args: never[]) => unknown>(fn: F): Transaction<F>;
  close(): Database;
}

export function openDatabase(filename: string): Database {
  const Ctor = BetterSqlite3 as unknown as new (filename: string) => Database;
  return new Ctor(filename);
}
