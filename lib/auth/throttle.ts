import "server-only";
import { db } from "@/lib/db";
import { env } from "@/lib/env";

// Wrong passwords are counted per account (the e-mail as typed, known or not, so
// a lockout says nothing about whether the account exists) and per client
// address, in the database so every instance sees the same counts. Past the
// allowed attempts, each further failure locks the key for twice as long as the
// previous one (30 s, 1 min, 2 min… up to GUICHET_SIGN_IN_MAX_LOCKOUT); while a
// key is locked every attempt is refused, the right password too, without
// comparing it (and without counting: a locked account stays locked no longer
// than its last failure earned). Counts are forgotten after an hour without a
// failure; a successful sign-in clears its account's count.

const FIRST_LOCKOUT_MS = 30_000;
const FORGET_AFTER_MS = 60 * 60 * 1000;

/** next-auth hands the message to the sign-in form as `error`. */
export class SignInThrottled extends Error {
  name = "SignInThrottled";
  constructor(readonly retryAfterMs: number) {
    super("SignInThrottled");
  }
}

interface ThrottleKey {
  key: string;
  allowed: number;
}

/** The keys an attempt counts on: the account (when the e-mail can be one) and the client address. */
export function throttleKeys(email: string | null, address: string): ThrottleKey[] {
  const byAddress = { key: `ip:${address}`, allowed: env.GUICHET_SIGN_IN_IP_ATTEMPTS };
  return email === null
    ? [byAddress]
    : [{ key: `account:${email}`, allowed: env.GUICHET_SIGN_IN_ACCOUNT_ATTEMPTS }, byAddress];
}

/** Throws SignInThrottled while the account or the address is locked. */
export async function assertSignInAllowed(keys: ThrottleKey[], now = new Date()): Promise<void> {
  const locked = await db.signInThrottle.findMany({
    where: { key: { in: keys.map((k) => k.key) }, lockedUntil: { gt: now } },
    select: { lockedUntil: true },
  });
  if (locked.length === 0) return;
  const until = Math.max(...locked.map((row) => row.lockedUntil!.getTime()));
  throw new SignInThrottled(until - now.getTime());
}

/** The lockout after the n-th consecutive failure, or none while attempts remain. */
export function lockoutMs(failures: number, allowed: number): number {
  if (failures <= allowed) return 0;
  return Math.min(env.GUICHET_SIGN_IN_MAX_LOCKOUT * 1000, FIRST_LOCKOUT_MS * 2 ** Math.min(failures - allowed - 1, 20));
}

/** Counts one failure on each key and locks those past their allowance. Returns the first key's failure count. */
export async function recordSignInFailure(keys: ThrottleKey[], now = new Date()): Promise<number> {
  // Now and then, forget counts that are over (each sprayed e-mail leaves a row); no cron needed.
  if (Math.random() < 0.01) {
    await db.signInThrottle.deleteMany({
      where: {
        lastFailureAt: { lt: new Date(now.getTime() - FORGET_AFTER_MS) },
        OR: [{ lockedUntil: null }, { lockedUntil: { lt: now } }],
      },
    });
  }
  const counts: number[] = [];
  for (const { key, allowed } of keys) {
    const failures = await incrementFailures(key, now);
    const lockout = lockoutMs(failures, allowed);
    if (lockout > 0)
      await db.signInThrottle.updateMany({ where: { key }, data: { lockedUntil: new Date(now.getTime() + lockout) } });
    counts.push(failures);
  }
  return counts[0];
}

export async function clearAccountFailures(email: string): Promise<void> {
  await db.signInThrottle.deleteMany({ where: { key: `account:${email}` } });
}

// One atomic statement on both databases (as the rate limit's counter): concurrent
// failures on several instances all count. A count idle for an hour starts again.
async function incrementFailures(key: string, now: Date): Promise<number> {
  const [row] = await db.$queryRaw<{ failures: number | bigint }[]>`
    INSERT INTO "SignInThrottle" ("key", "failures", "lastFailureAt") VALUES (${key}, 1, ${now})
    ON CONFLICT ("key") DO UPDATE SET
      "failures" = CASE WHEN "SignInThrottle"."lastFailureAt" < ${new Date(now.getTime() - FORGET_AFTER_MS)} THEN 1 ELSE "SignInThrottle"."failures" + 1 END,
      "lastFailureAt" = ${now}
    RETURNING "failures"`;
  return Number(row.failures);
}
