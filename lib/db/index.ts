import "server-only";
import { PrismaBetterSQLite3 } from "@prisma/adapter-better-sqlite3";
import { PrismaPg } from "@prisma/adapter-pg";
import { env } from "@/lib/env";
import { PrismaClient as SqliteClient, Prisma } from "./generated/sqlite/client";
import { PrismaClient as PostgresClient } from "./generated/postgresql/client";

// One client module. The two generated clients come from the same schema source
// (prisma/schema.base.prisma), so they share one API; we type both as the SQLite one.
export type Db = SqliteClient;
export type Tx = Prisma.TransactionClient;
export type DbOrTx = Db | Tx;
export { Prisma };

export const provider: "sqlite" | "postgresql" = env.databaseUrl.startsWith("file:") ? "sqlite" : "postgresql";

function createClient(): Db {
  if (provider === "sqlite") {
    return new SqliteClient({ adapter: new PrismaBetterSQLite3({ url: env.databaseUrl, timeout: 10_000 }) });
  }
  const client = new PostgresClient({ adapter: new PrismaPg({ connectionString: env.databaseUrl }) });
  return client as unknown as Db;
}

const globalForDb = globalThis as unknown as { guichetDb?: Db };
export const db: Db = globalForDb.guichetDb ?? createClient();
if (env.NODE_ENV !== "production") globalForDb.guichetDb = db;

/** A unique-constraint violation (P2002), whichever client raised it. */
export function isUniqueViolation(error: unknown): boolean {
  return typeof error === "object" && error !== null && (error as { code?: string }).code === "P2002";
}
