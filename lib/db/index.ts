import "server-only";
import { PrismaPg } from "@prisma/adapter-pg";
import { env } from "@/lib/env";
import type { Pool } from "pg";
import { capturePgPool } from "./driver";
import { sqliteAdapter } from "./sqlite-adapter";
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
    return new SqliteClient({ adapter: sqliteAdapter(env.databaseUrl) });
  }
  const adapter = new PrismaPg({ connectionString: env.databaseUrl });
  // The hot statements run on Prisma's own pool (lib/db/driver.ts).
  const connect = adapter.connect.bind(adapter);
  adapter.connect = async () => {
    const connected = await connect();
    capturePgPool(connected.underlyingDriver() as Pool);
    return connected;
  };
  const client = new PostgresClient({ adapter });
  return client as unknown as Db;
}

// One client per process. The build compiles this module into more than one bundle (the instrumentation
// hook's, which runs the background jobs, and the routes'), each with its own module instance: two clients
// would hold two SQLite connections, and a transaction of one waiting for the other's write lock blocks
// the event loop the other needs to commit. In development, hot reloads keep it too.
const globalForDb = globalThis as unknown as { guichetDb?: Db };
export const db: Db = (globalForDb.guichetDb ??= createClient());

/** A unique-constraint violation (P2002), whichever client raised it. */
export function isUniqueViolation(error: unknown): boolean {
  return typeof error === "object" && error !== null && (error as { code?: string }).code === "P2002";
}

/** Runs `fn` in the caller's transaction if it passed one, otherwise in a new one. */
export function inTransaction<T>(tx: DbOrTx, fn: (tx: Tx) => Promise<T>): Promise<T> {
  return "$transaction" in tx ? tx.$transaction(fn) : fn(tx);
}
