import { describe, expect, it, vi } from "vitest";
import type { SharedIncrement } from "./lease";

// The block arithmetic against a shared counter held here (what the database row
// or the Redis key holds); each `instance()` is a fresh copy of the module, as
// each app process has its own blocks. Across real processes and both databases:
// tests/api/rate-limit.test.ts.

async function instance() {
  vi.resetModules();
  return import("./lease");
}

function sharedCounter() {
  const counts = new Map<string, number>();
  let writes = 0;
  const increment: SharedIncrement = async (key, windowStart, _windowMs, size) => {
    writes++;
    await Promise.resolve();
    const total = (counts.get(`${key}:${windowStart}`) ?? 0) + size;
    counts.set(`${key}:${windowStart}`, total);
    return total;
  };
  return {
    increment,
    writes: () => writes,
    count: (key: string, windowStart: number) => counts.get(`${key}:${windowStart}`) ?? 0,
  };
}

describe("takeToken", () => {
  it("sizes blocks from what is left, one token near the limit", async () => {
    const { blockSize, MAX_BLOCK } = await instance();
    expect(blockSize(1e9, 0)).toBe(MAX_BLOCK);
    expect(blockSize(640, 0)).toBe(20);
    expect(blockSize(640, 600)).toBe(1);
    expect(blockSize(5, 0)).toBe(1);
    expect(blockSize(5, 9)).toBe(1);
  });

  it("admits exactly the limit across two instances taking turns", async () => {
    const shared = sharedCounter();
    const [a, b] = [await instance(), await instance()];
    let admitted = 0;
    for (let i = 0; i < 1_300; i++) {
      if (await (i % 2 ? a : b).takeToken(shared.increment, "k", 1_000, 0, 60_000)) admitted++;
    }
    expect(admitted).toBe(1_000);
    expect(shared.writes()).toBeLessThan(400);
  });

  it("never admits more than the limit when many requests of both instances arrive at once", async () => {
    const shared = sharedCounter();
    const [a, b] = [await instance(), await instance()];
    const results = await Promise.all(
      Array.from({ length: 700 }, (_, i) => (i % 2 ? a : b).takeToken(shared.increment, "k", 500, 0, 60_000)),
    );
    const admitted = results.filter(Boolean).length;
    expect(admitted).toBeLessThanOrEqual(500);
    expect(admitted).toBeGreaterThanOrEqual(500 - 2 * a.blockSize(500, 0));
  });

  it("makes one write for concurrent requests of one instance, and none once the window is exhausted", async () => {
    const shared = sharedCounter();
    const a = await instance();
    const results = await Promise.all(
      Array.from({ length: 50 }, () => a.takeToken(shared.increment, "k", 1e9, 0, 60_000)),
    );
    expect(results.every(Boolean)).toBe(true);
    expect(shared.writes()).toBe(1);

    const before = shared.writes();
    for (let i = 0; i < 3; i++) expect(await a.takeToken(shared.increment, "small", 2, 0, 60_000)).toBe(i < 2);
    const afterExhausted = shared.writes();
    expect(await a.takeToken(shared.increment, "small", 2, 0, 60_000)).toBe(false);
    expect(shared.writes()).toBe(afterExhausted);
    // The second write brought the count to the limit: the third request is refused without writing.
    expect(afterExhausted - before).toBe(2);
  });

  it("starts again in a new window", async () => {
    const shared = sharedCounter();
    const a = await instance();
    expect(await a.takeToken(shared.increment, "k", 1, 0, 60_000)).toBe(true);
    expect(await a.takeToken(shared.increment, "k", 1, 0, 60_000)).toBe(false);
    expect(await a.takeToken(shared.increment, "k", 1, 60_000, 60_000)).toBe(true);
    expect(shared.count("k", 60_000)).toBe(1);
  });
});
