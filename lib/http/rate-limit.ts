import "server-only";
import Redis from "ioredis";
import { db, provider } from "@/lib/db";
import type { DriverStatement } from "@/lib/db/driver";
import { env } from "@/lib/env";
import { principalId, type Principal } from "@/lib/auth/principal";
import { takeToken } from "@/lib/limits/lease";
import { log } from "@/lib/log";
import { noteRateLimited, noteRateLimitStoreFallback } from "@/lib/observability/metrics";
import { ApiError } from "./errors";

export interface LimitDecision {
  allowed: boolean;
  retryAfterMs: number;
}

let redis: Redis | undefined;
/** The shared Redis connection when REDIS_URL is set (limits and locks that every instance must see). */
export function redisClient(): Redis | undefined {
  if (!env.REDIS_URL) return undefined;
  if (!redis) {
    redis = new Redis(env.REDIS_URL, { maxRetriesPerRequest: 2, lazyConnect: false });
    redis.once("ready", () => (redisWasReady = true));
  }
  return redis;
}
let redisWasReady = false;

// Redis away (stopped, restarting, unreachable): a rate limit's counters go to the database instead, the
// store they use without REDIS_URL, until Redis is back. Every request still gets its answer — a limit is
// still enforced, from a count that starts again at zero in the database for the rest of the window (at
// most one extra window's allowance while Redis is away) — rather than an error for every call: the limit
// protects the service, it is not the service. Each fallback is counted (guichet_rate_limit_store_fallbacks_total)
// and logged, at most once every 10 s per process. Write locks never fall back (lib/limits/write-lock.ts): two
// instances on two stores would both take the same lock; a commit answers a retryable RATE_LIMITED instead.

const FALLBACK_LOG_EVERY_MS = 10_000;
let lastFallbackLog = 0;

function fellBack(reason: string): void {
  noteRateLimitStoreFallback();
  const now = Date.now();
  if (now - lastFallbackLog < FALLBACK_LOG_EVERY_MS) return;
  lastFallbackLog = now;
  log("warn", "rate_limit.store_unavailable", { store: "redis", fallback: "database", reason });
}

/**
 * Runs `inRedis` when Redis is connected, `inDatabase` when Redis is unset, or away, or fails the command.
 * The first connection is waited for (the command waits in the client's queue); once Redis was up, a
 * connection being made again is not: the counter goes to the database at once.
 */
async function withLimitStore<T>(inRedis: (client: Redis) => Promise<T>, inDatabase: () => Promise<T>): Promise<T> {
  const client = redisClient();
  if (!client) return inDatabase();
  if (client.status !== "ready" && redisWasReady) {
    fellBack(client.status);
    return inDatabase();
  }
  try {
    return await inRedis(client);
  } catch (error) {
    fellBack(error instanceof Error ? error.name : "unknown");
    return inDatabase();
  }
}

/** The start of the fixed window of `windowMs` that `now` falls in. */
export function windowStartOf(windowMs: number, now: number): number {
  return Math.floor(now / windowMs) * windowMs;
}

/**
 * Counts one hit in the current fixed window of `windowMs` for `key`. The count
 * lives where every app instance sees it: Redis when REDIS_URL is set, otherwise
 * the database (an atomic upsert-increment); each instance takes it in blocks
 * (lib/limits/lease.ts), so most requests write nothing.
 */
export async function hit(key: string, limit: number, windowMs: number, now = Date.now()): Promise<LimitDecision> {
  const windowStart = windowStartOf(windowMs, now);
  const retryAfterMs = windowStart + windowMs - now;
  const allowed = await takeToken(incrementInStore, key, limit, windowStart, windowMs);
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
  const windowStart = windowStartOf(windowMs, now);
  const count = await incrementInStore(key, windowStart, windowMs, 1);
  return { allowed: count <= limit, retryAfterMs: windowStart + windowMs - now };
}

export interface ChainedCounter {
  key: string;
  limit: number;
  windowMs: number;
}

/**
 * Several exact counters taken in order, as successive `hitExactly` calls that
 * stop at the first refusal would take them — a counter after a refused one is
 * not touched — but in one round trip: one statement on PostgreSQL (each
 * INSERT of the chain runs only if the previous count is within its limit),
 * one Lua script on Redis. SQLite is in process: its statements stay one by one.
 * Returns the index of the refusing counter, or -1, and its wait.
 */
export async function hitChainExactly(
  counters: readonly ChainedCounter[],
  now = Date.now(),
): Promise<{ refused: number; retryAfterMs: number }> {
  const windows = counters.map((c) => windowStartOf(c.windowMs, now));
  const counts = await withLimitStore(
    (client) => chainInRedis(client, counters, windows),
    () => (provider === "postgresql" ? chainInPostgres(counters, now) : chainOneByOne(counters, windows)),
  );
  for (let i = 0; i < counters.length; i++) {
    const count = counts[i];
    if (count === null) break;
    if (count > counters[i].limit) return { refused: i, retryAfterMs: windows[i] + counters[i].windowMs - now };
  }
  return { refused: -1, retryAfterMs: 0 };
}

async function chainOneByOne(counters: readonly ChainedCounter[], windows: number[]): Promise<(number | null)[]> {
  const counts: (number | null)[] = counters.map(() => null);
  for (let i = 0; i < counters.length; i++) {
    counts[i] = await incrementInDatabase(counters[i].key, windows[i], counters[i].windowMs, 1);
    if (counts[i]! > counters[i].limit) break;
  }
  return counts;
}

/**
 * The PostgreSQL CTE steps of a chain of counters, named `c0`, `c1`…: each INSERT … ON CONFLICT counts one in
 * its window, and runs only when the step before it is within its limit (and `guard(i)`, SQL that may read
 * CTEs named before these steps, holds). `param` adds a value and answers its placeholder. Shared by
 * hitChainExactly and the widget's turn (lib/widgets/turn.ts), so both count in the same rows the same way.
 */
export function chainedCounterSteps(
  counters: readonly ChainedCounter[],
  now: number,
  param: (value: unknown) => string,
  guard: (index: number) => string = () => "",
): string[] {
  return counters.map((counter, i) => {
    const start = windowStartOf(counter.windowMs, now);
    const key = `CAST(${param(counter.key)} AS TEXT)`;
    const from = `CAST(${param(new Date(start))} AS TIMESTAMP(3))`;
    const end = `CAST(${param(new Date(start + counter.windowMs))} AS TIMESTAMP(3))`;
    const conditions = [
      ...(i === 0 ? [] : [`(SELECT "count" FROM c${i - 1}) <= CAST(${param(counters[i - 1].limit)} AS INTEGER)`]),
      ...(guard(i) ? [guard(i)] : []),
    ];
    const where = conditions.length ? ` WHERE ${conditions.join(" AND ")}` : "";
    return `c${i} AS (INSERT INTO "RateLimitWindow" ("key", "windowStart", "endsAt", "count") SELECT ${key}, ${from}, ${end}, 1${where}
      ON CONFLICT ("key", "windowStart") DO UPDATE SET "count" = "RateLimitWindow"."count" + 1 RETURNING "count")`;
  });
}

/** What the chain's steps counted, from the row that selects `c0`, `c1`…; null for a step not taken. */
export function chainedCounts(row: Record<string, unknown>, length: number): (number | null)[] {
  return Array.from({ length }, (_, i) =>
    row[`c${i}`] === null || row[`c${i}`] === undefined ? null : Number(row[`c${i}`]),
  );
}

async function chainInPostgres(counters: readonly ChainedCounter[], now: number): Promise<(number | null)[]> {
  const values: unknown[] = [];
  const param = (value: unknown) => {
    values.push(value);
    return `$${values.length}`;
  };
  const steps = chainedCounterSteps(counters, now, param);
  const sql = `WITH ${steps.join(",\n")} SELECT ${counters.map((_, i) => `(SELECT "count" FROM c${i}) AS c${i}`).join(", ")}`;
  const [row] = await db.$queryRawUnsafe<Record<string, unknown>[]>(sql, ...values);
  return chainedCounts(row, counters.length);
}

/** KEYS: the window keys; ARGV: for each, its limit and its time to live (ms). Stops after the first count over its limit. */
const CHAIN_LUA = `
local counts = {}
for i, key in ipairs(KEYS) do
  local count = redis.call('INCR', key)
  redis.call('PEXPIRE', key, ARGV[2 * i])
  counts[i] = count
  if count > tonumber(ARGV[2 * i - 1]) then break end
end
return counts`;

async function chainInRedis(
  client: Redis,
  counters: readonly ChainedCounter[],
  windows: number[],
): Promise<(number | null)[]> {
  const keys = counters.map((c, i) => `guichet:rl:${c.key}:${windows[i]}`);
  const args = counters.flatMap((c) => [String(c.limit), String(c.windowMs + 1000)]);
  const counts = (await client.eval(CHAIN_LUA, keys.length, ...keys, ...args)) as number[];
  return counters.map((_, i) => (i < counts.length ? Number(counts[i]) : null));
}

function incrementInStore(key: string, windowStart: number, windowMs: number, size: number): Promise<number> {
  return withLimitStore(
    (client) => incrementInRedis(client, key, windowStart, windowMs, size),
    () => incrementInDatabase(key, windowStart, windowMs, size),
  );
}

async function incrementInRedis(
  client: Redis,
  key: string,
  windowStart: number,
  windowMs: number,
  size: number,
): Promise<number> {
  const redisKey = `guichet:rl:${key}:${windowStart}`;
  const [[, total]] = (await client
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

/** incrementInDatabase's statement, by one, for the driver (lib/db/driver.ts): a widget turn takes it on SQLite. */
export function incrementStatement(key: string, windowStart: number, windowMs: number): DriverStatement {
  return {
    sql: `INSERT INTO "RateLimitWindow" ("key", "windowStart", "endsAt", "count") VALUES ($1, $2, $3, 1)
    ON CONFLICT ("key", "windowStart") DO UPDATE SET "count" = "RateLimitWindow"."count" + 1 RETURNING "count"`,
    values: [key, new Date(windowStart), new Date(windowStart + windowMs)],
  };
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
