import "server-only";
import { db } from "@/lib/db";
import { env } from "@/lib/env";
import { newId } from "@/lib/ids";

const DAY_MS = 24 * 60 * 60 * 1000;

/**
 * Deletes the events older than the retention (GUICHET_AUDIT_RETENTION_DAYS).
 * The only delete the database lets through: the triggers refuse a DELETE of an
 * audit event unless a purge gate with a later cutoff exists, and the gate lives
 * only inside this transaction (written first, removed before commit), so no
 * other connection ever sees it. Returns how many events went.
 */
export async function purgeExpiredAuditEvents(
  now = new Date(),
  retentionDays = env.GUICHET_AUDIT_RETENTION_DAYS,
): Promise<number> {
  const before = new Date(now.getTime() - retentionDays * DAY_MS);
  const gate = newId("aud");
  return db.$transaction(async (tx) => {
    await tx.auditPurgeGate.create({ data: { id: gate, before } });
    const { count } = await tx.auditEvent.deleteMany({ where: { createdAt: { lt: before } } });
    await tx.auditPurgeGate.delete({ where: { id: gate } });
    return count;
  });
}
