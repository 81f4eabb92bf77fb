import BetterSqlite3 from "better-sqlite3";

export type Database = BetterSqlite3.Database;

export function openDatabase(filename: string): Database {
  return new BetterSqlite3(filename);
}
