import "server-only";
import { db, Prisma } from "@/lib/db";
import { env } from "@/lib/env";

// The conversation of a managed run is the customer's data: after
// GUICHET_RUN_RETENTION_DAYS its messages and final answer are deleted, and so
// are its stored stream events (the model's text deltas, the final answer and
// a client tool's arguments travel in them). The run's record stays — status,
// steps, usage, failure, proposals and operations — and
// GET /v1/runs/{run}/messages then answers no messages with `purged_at`;
// GET /v1/runs/{run}/events has nothing left to replay. A widget visitor's
// message that started such a run goes with it (lib/widgets): the conversation
// a visitor reads back holds nothing older than the window.

const BATCH = 200;

/** Purges the runs created before the retention window; answers how many. */
export async function purgeOldTranscripts(now = new Date()): Promise<number> {
  const cutoff = new Date(now.getTime() - env.GUICHET_RUN_RETENTION_DAYS * 24 * 60 * 60 * 1000);
  let total = 0;
  for (;;) {
    const runs = await db.run.findMany({
      where: { createdAt: { lt: cutoff }, modelId: { not: null }, transcriptPurgedAt: null },
      select: { id: true },
      orderBy: { createdAt: "asc" },
      take: BATCH,
    });
    if (runs.length === 0) return total;
    const ids = runs.map((run) => run.id);
    // One transaction: a run marked purged has no event left, whichever instance ran the job.
    const purged = await db.$transaction(async (tx) => {
      const marked = await tx.run.updateMany({
        where: { id: { in: ids }, transcriptPurgedAt: null },
        data: {
          transcript: Prisma.DbNull,
          output: Prisma.DbNull,
          requiredAction: Prisma.DbNull,
          transcriptPurgedAt: now,
        },
      });
      await tx.runEvent.deleteMany({ where: { runId: { in: ids } } });
      await tx.widgetMessage.deleteMany({ where: { runId: { in: ids } } });
      return marked.count;
    });
    total += purged;
    if (runs.length < BATCH) return total;
  }
}
