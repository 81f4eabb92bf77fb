import "server-only";
import { db, isUniqueViolation } from "@/lib/db";
import { redisClient } from "@/lib/http/rate-limit";

// One write in flight per target resource: two approved writes on
// the same customer are serialized here, across every app instance. The
// service keeps its own transactions and version checks; this only keeps
// Guichet from sending it two writes at once. A lock expires so that a crashed
// holder cannot block a target forever.

export interface WriteLockTarget {
  organizationId: string;
  type: string;
  id: string;
}

export function lockName(target: WriteLockTarget): string {
  return `${target.organizationId}:${target.type}:${target.id}`;
}

/** Takes the target's lock for `holder`; false when another holder has it and it has not expired. */
export async function acquireWriteLock(
  target: WriteLockTarget,
  holder: string,
  ttlMs: number,
  now = new Date(),
): Promise<boolean> {
  const name = lockName(target);
  const redis = redisClient();
  if (redis) return (await redis.set(`guichet:wl:${name}`, holder, "PX", ttlMs, "NX")) === "OK";
  const expiresAt = new Date(now.getTime() + ttlMs);
  try {
    await db.writeLock.create({ data: { target: name, holder, expiresAt } });
    return true;
  } catch (error) {
    if (!isUniqueViolation(error)) throw error;
  }
  // Taken: it is ours only if the current holder's lease has run out, and only one taker wins that update.
  const taken = await db.writeLock.updateMany({
    where: { target: name, expiresAt: { lt: now } },
    data: { holder, expiresAt },
  });
  return taken.count === 1;
}

/** Gives the lock back, only if `holder` still has it. */
export async function releaseWriteLock(target: WriteLockTarget, holder: string): Promise<void> {
  const name = lockName(target);
  const redis = redisClient();
  if (redis) {
    // Compare-and-delete in one step, so a lock taken over after expiry is never released by the old holder.
    await redis.eval(
      "if redis.call('get', KEYS[1]) == ARGV[1] then return redis.call('del', KEYS[1]) else return 0 end",
      1,
      `guichet:wl:${name}`,
      holder,
    );
    return;
  }
  await db.writeLock.deleteMany({ where: { target: name, holder } });
}

/** Runs `work` holding the target's lock; null (nothing run) when another write is in flight. */
export async function withWriteLock<T>(
  target: WriteLockTarget,
  holder: string,
  ttlMs: number,
  work: () => Promise<T>,
): Promise<{ ran: true; value: T } | { ran: false }> {
  if (!(await acquireWriteLock(target, holder, ttlMs))) return { ran: false };
  try {
    return { ran: true, value: await work() };
  } finally {
    await releaseWriteLock(target, holder);
  }
}

/**
 * Frees the target's lock when an attempt of `operationId` holds it (holders are `<operation id>:<nonce>`):
 * for the instance that took over a run whose stopped instance held it. That attempt's write is never sent
 * again — the commit asks the service's status — so nothing else is let through to the target early.
 */
export async function releaseOperationLock(target: WriteLockTarget, operationId: string): Promise<void> {
  const name = lockName(target);
  const redis = redisClient();
  if (redis) {
    await redis.eval(
      "local h = redis.call('get', KEYS[1]) if h and string.sub(h, 1, string.len(ARGV[1])) == ARGV[1] then return redis.call('del', KEYS[1]) else return 0 end",
      1,
      `guichet:wl:${name}`,
      `${operationId}:`,
    );
    return;
  }
  await db.writeLock.deleteMany({ where: { target: name, holder: { startsWith: `${operationId}:` } } });
}
