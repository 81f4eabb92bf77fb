import { createServer } from "node:net";
import { PrismaPg } from "@prisma/adapter-pg";
import pg from "pg";
import { afterAll, describe, expect, it } from "vitest";
import { toErrorEnvelope } from "@/lib/http/errors";
import { PrismaClient } from "./generated/postgresql/client";
import { isDatabaseUnavailable } from "./unavailable";

// The errors a request meets when PostgreSQL is away, as the real clients raise
// them — Prisma through its pg adapter, and pg itself (the statements on the
// driver) — against one that refuses statements: only the first are a 503.

/** A port nothing listens on: taken from the system, then closed. */
async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as { port: number };
  await new Promise((resolve) => server.close(resolve));
  return port;
}

async function thrown(work: () => Promise<unknown>): Promise<unknown> {
  try {
    await work();
  } catch (error) {
    return error;
  }
  throw new Error("expected an error");
}

const live = new pg.Pool({
  connectionString: process.env.TEST_PG_ADMIN_URL ?? "postgresql://postgres@127.0.0.1:5432/postgres",
});
afterAll(() => live.end());

describe("a database that cannot be reached", () => {
  it("is recognised in Prisma's error, and answered 503 service_unavailable with Retry-After", async () => {
    const url = `postgresql://postgres@127.0.0.1:${await closedPort()}/postgres`;
    const client = new PrismaClient({ adapter: new PrismaPg({ connectionString: url }) });
    // A model query's error carries Prisma's code (P1001), a raw query's only the adapter's kind (P2010).
    for (const query of [() => client.organization.findFirst(), () => client.$queryRawUnsafe("SELECT 1")]) {
      const error = await thrown(query);
      expect(isDatabaseUnavailable(error)).toBe(true);
      const answer = toErrorEnvelope(error, "req_test");
      expect(answer.status).toBe(503);
      expect(answer.body.error.code).toBe("service_unavailable");
      expect(answer.headers["retry-after"]).toBe("1");
    }
    await client.$disconnect().catch(() => undefined);
  });

  it("is recognised in pg's own error (the statements on the driver)", async () => {
    const pool = new pg.Pool({ connectionString: `postgresql://postgres@127.0.0.1:${await closedPort()}/postgres` });
    const error = await thrown(() => pool.query("SELECT 1"));
    await pool.end();
    expect(isDatabaseUnavailable(error)).toBe(true);
  });

  it("is recognised when the server ends the connection (an administrator's shutdown)", async () => {
    const victim = await live.connect();
    const { rows } = await victim.query<{ pid: number }>("SELECT pg_backend_pid() AS pid");
    victim.on("error", () => undefined);
    await live.query("SELECT pg_terminate_backend($1)", [rows[0].pid]);
    const error = await thrown(() => victim.query("SELECT 1"));
    victim.release(true);
    expect(isDatabaseUnavailable(error)).toBe(true);
  });
});

describe("a statement the database refuses", () => {
  it("is not mistaken for an unreachable database, and stays a 500", async () => {
    for (const sql of ["SELEC 1", "SELECT 1/0", 'SELECT * FROM "NoSuchTable"']) {
      const error = await thrown(() => live.query(sql));
      expect(isDatabaseUnavailable(error), sql).toBe(false);
      expect(toErrorEnvelope(error, "req_test").status).toBe(500);
    }
  });
});
