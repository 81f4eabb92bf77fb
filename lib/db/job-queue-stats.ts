import "server-only";
import { db, provider } from "@/lib/db";

// How many background jobs wait, per queue (job name), and how long the oldest
// due one has waited: the embedded runner's table on SQLite, pg-boss's own on
// PostgreSQL. Read at each /metrics scrape.

export interface JobQueueStat {
  queue: string;
  waiting: number;
  oldestAgeSeconds: number;
}

export async function jobQueueStats(now = new Date()): Promise<JobQueueStat[]> {
  if (provider === "sqlite") {
    const rows = await db.backgroundJob.groupBy({
      by: ["name"],
      where: { state: "created", startAfter: { lte: now } },
      _count: { _all: true },
      _min: { startAfter: true },
    });
    return rows.map((row) => ({
      queue: row.name,
      waiting: row._count._all,
      oldestAgeSeconds: row._min.startAfter ? Math.max(0, (now.getTime() - row._min.startAfter.getTime()) / 1000) : 0,
    }));
  }
  // pg-boss creates its schema when the job runner starts: before that, no queue.
  const rows = await db
    .$queryRawUnsafe<{ name: string; waiting: number; age: number | null }[]>(
      `SELECT name, count(*)::int AS waiting, EXTRACT(EPOCH FROM now() - min(start_after))::float8 AS age
         FROM pgboss.job WHERE state IN ('created', 'retry') AND start_after <= now() GROUP BY name`,
    )
    .catch(() => []);
  return rows.map((row) => ({
    queue: row.name,
    waiting: Number(row.waiting),
    oldestAgeSeconds: Math.max(0, row.age ?? 0),
  }));
}
