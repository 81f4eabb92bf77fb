import { describe, expect, it } from "vitest";
import { testDb } from "./helpers";

// The outbox poll reads before it writes: at a moment when nothing is due it
// answers "nothing to do" having only read, and the server's polling leaves no
// job rows behind (a scheduled job per poll would insert and update one each
// time, on SQLite's embedded runner as in pg-boss). Delivery itself is proven
// by the webhooks and approver e-mail suites.

const { pollOutbox } = await import("@/lib/webhooks/jobs");

const READS = new Set(["findFirst", "findFirstOrThrow", "findMany", "findUnique", "findUniqueOrThrow", "count"]);

/** The suite's database client, recording every model operation made through it. */
async function recordingClient() {
  const operations: string[] = [];
  const client = (await testDb()).$extends({
    query: {
      $allModels: {
        async $allOperations({ model, operation, args, query }) {
          operations.push(`${model}.${operation}`);
          return query(args);
        },
      },
    },
  });
  return { client: client as unknown as Awaited<ReturnType<typeof testDb>>, operations };
}

/** The outbox job rows the suite's job store holds: the embedded runner's table, or pg-boss's. */
async function outboxJobRows(): Promise<number> {
  const db = await testDb();
  const sqlite = (process.env.DATABASE_URL ?? "").startsWith("file:");
  const [row] = sqlite
    ? await db.$queryRawUnsafe<{ n: bigint | number }[]>(
        `SELECT COUNT(*) AS n FROM "BackgroundJob" WHERE name LIKE 'outbox%'`,
      )
    : await db.$queryRawUnsafe<{ n: bigint | number }[]>(
        `SELECT COUNT(*) AS n FROM pgboss.job WHERE name LIKE 'outbox%'`,
      );
  return Number(row.n);
}

describe("the outbox poll", () => {
  it("reads only, and says so, when nothing is due", async () => {
    const { client, operations } = await recordingClient();
    // As of the epoch nothing can be due: no expiry and no delivery time lies that far back.
    expect(await pollOutbox(new Date(0), client)).toBe(false);
    expect(operations.length).toBeGreaterThan(0);
    expect(operations.filter((op) => !READS.has(op.split(".")[1]))).toEqual([]);
    // One look each: a delivery due, a proposal expired, a proposal due for escalation.
    expect(operations.sort()).toEqual(["OutboxDelivery.findFirst", "Proposal.findFirst", "Proposal.findFirst"]);
  });

  it("leaves no job rows behind in the server that has been polling all along", async () => {
    expect(await outboxJobRows()).toBe(0);
  });
});
