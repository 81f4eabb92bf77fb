import "server-only";
import Redis from "ioredis";
import { db } from "@/lib/db";
import { env } from "@/lib/env";
import { principalId, type Principal } from "@/lib/auth/principal";
import { takeToken } from "@/lib/limits/lease";
import { noteRateLimited } from "@/lib/observability/metrics";
import { ApiError } from "./errors";

export interface LimitDecision {
  allowed: boolean;
  retryAfterMs: number;
}

let redis: Redis | undefined;
/** The shared Redis connection when REDIS_URL is set (limits and locks that every instance must see). */
export function redisClient(): Redis | undefined {
  if (!env.REDIS_URL) return undefined;
  redis ??= new Redis(env.REDIS_URL, { maxRetriesPerRequest: 2, lazyConnect: false });
  return redis;
}

/**
 * Counts one hit in the current fixed window of `windowMs` for `key`. The count
 * lives where every app instance sees it: Redis when REDIS_URL is set, otherwise
 * the database (an atomic upsert-increment); each instance takes it in blocks
 * (lib/limits/lease.ts), so most requests write nothing.
 */
export async function hit(key: string, limit: number, windowMs: number, now = Date.now()): Promise<LimitDecision> {
  const windowStart = Math.floor(now / windowMs) * windowMs;
  const retryAfterMs = windowStart + windowMs - now;
  const allowed = await takeToken(
    redisClient() ? incrementInRedis : incrementInDatabase,
    key,
    limit,
    windowStart,
    windowMs,
  );
  return { allowed, retryAfterMs };
}

/**
 * Counts one hit with no block taken ahead (lib/limits/lease.ts): each hit is one shared
 * increment, so a small limit holds exactly under concurrent requests on any instance.
 */
export async function hitExactly(
  key: string,
  limit: number,
  windowMs: number,
  now = Date.now(),
): Promise<LimitDecision> {
  const windowStart = Math.floor(now / windowMs) * windowMs;
  const count = await (redisClient() ? incrementInRedis : incrementInDatabase)(key, windowStart, windowMs, 1);
  return { allowed: count <= limit, retryAfterMs: windowStart + windowMs - now };
}

async function incrementInRedis(key: string, windowStart: number, windowMs: number, size: number): Promise<number> {
  const redisKey = `guichet:rl:${key}:${windowStart}`;
  const [[, total]] = (await redisClient()!
    .multi()
    .incrby(redisKey, size)
    .pexpire(redisKey, windowMs + 1000)
    .exec()) as [[null, number]];
  return total;
}

// One statement, the same on SQLite and PostgreSQL: INSERT … ON CONFLICT DO UPDATE is
// atomic on both (PostgreSQL resolves concurrent inserts of one window itself; SQLite
// has one writer at a time), so every instance counts in the same row. Written as SQL
// because Prisma's upsert compiles its query plan on every request (the figures are in
// the README, « Why some statements are written by hand »). Rows and their windowStart
// format are the ones the Prisma client writes and reads (checked on both databases).
async function incrementInDatabase(key: string, windowStart: number, windowMs: number, size: number): Promise<number> {
  const [row] = await db.$queryRaw<{ count: number | bigint }[]>`
    INSERT INTO "RateLimitWindow" ("key", "windowStart", "endsAt", "count")
    VALUES (${key}, ${new Date(windowStart)}, ${new Date(windowStart + windowMs)}, ${size})
    ON CONFLICT ("key", "windowStart") DO UPDATE SET "count" = "RateLimitWindow"."count" + ${size}
    RETURNING "count"`;
  // Now and then, forget windows that ended long ago (cheap, and no cron to run).
  if (Math.random() < 0.01) await forgetEndedWindows();
  return Number(row.count);
}

/**
 * Deletes the windows that ended more than an hour ago, each by its own end: a daily or a
 * conversation's lifetime count outlives the cleanup that minute windows trigger. Rows
 * written before windows kept their end go once a day has passed since they started.
 */
export async function forgetEndedWindows(now = Date.now()): Promise<number> {
  const cutoff = new Date(now - 3_600_000);
  const { count } = await db.rateLimitWindow.deleteMany({
    where: {
      OR: [
        { endsAt: { lt: cutoff } },
        { endsAt: null, windowStart: { lt: new Date(now - 24 * 3_600_000 - 3_600_000) } },
      ],
    },
  });
  return count;
}

export function rateLimited(retryAfterMs: number, message = "Too many requests."): ApiError {
  const seconds = Math.max(1, Math.ceil(retryAfterMs / 1000));
  return new ApiError("rate_limited", `${message} Retry in ${seconds} s.`, {
    headers: { "retry-after": String(seconds) },
    reason: { retry_after_ms: retryAfterMs },
  });
}

/** The per-caller API limit (per key, or per signed-in member). */
export async function enforceRateLimit(principal: Principal): Promise<void> {
  const decision = await hit(`api:${principalId(principal)}`, env.GUICHET_RATE_LIMIT_PER_MINUTE, 60_000);
  if (!decision.allowed) {
    noteRateLimited("api");
    throw rateLimited(decision.retryAfterMs);
  }
}
