import { randomBytes } from "node:crypto";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

// The Redis backend of the write lock (REDIS_URL set): the same guarantees as
// the database one, against the machine's Redis. The database backend is
// tested by the API suite (tests/api/dispatch-limits.test.ts).

let lock: typeof import("./write-lock");
let quit: () => Promise<unknown>;

beforeAll(async () => {
  process.env.REDIS_URL = process.env.TEST_REDIS_URL ?? "redis://127.0.0.1:6379";
  process.env.DATABASE_URL = `file:${path.join(os.tmpdir(), "guichet-unused.sqlite")}`;
  lock = await import("./write-lock");
  const { redisClient } = await import("@/lib/http/rate-limit");
  quit = () => redisClient()!.quit();
});

afterAll(async () => quit?.());

describe("write lock on Redis", () => {
  it("gives a target to one holder at a time, released only by its holder, taken over after expiry", async () => {
    const target = { organizationId: "org_test", type: "customer", id: randomBytes(6).toString("hex") };
    const taken = await Promise.all(
      Array.from({ length: 20 }, (_, i) => lock.acquireWriteLock(target, `h${i}`, 60_000)),
    );
    expect(taken.filter(Boolean)).toHaveLength(1);
    const winner = `h${taken.indexOf(true)}`;
    await lock.releaseWriteLock(target, "someone-else");
    expect(await lock.acquireWriteLock(target, "h-late", 60_000)).toBe(false);
    await lock.releaseWriteLock(target, winner);
    expect(await lock.withWriteLock(target, "h-late", 60_000, async () => 42)).toEqual({ ran: true, value: 42 });
    expect(await lock.acquireWriteLock(target, "short", 30)).toBe(true);
    // Wait for the lease to run out (a condition, polled), then the next writer takes the target.
    const deadline = Date.now() + 5_000;
    let next = false;
    while (!next && Date.now() < deadline) next = await lock.acquireWriteLock(target, "next", 60_000);
    expect(next).toBe(true);
    await lock.releaseWriteLock(target, "short");
    expect(await lock.acquireWriteLock(target, "third", 60_000)).toBe(false);
    await lock.releaseWriteLock(target, "next");
  });
});
