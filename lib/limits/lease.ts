import "server-only";

// Shared fixed-window counters, taken in blocks. Every instance counts in one
// shared place (a database row or a Redis key per key and window), but writing
// it on every request cost more than the rest of a short request. So an
// instance adds a block of tokens to the shared count in one write and spends
// them in process. The shared count is what all instances have taken: no
// instance ever grants a token that would bring it past the limit, so the
// number admitted in a window never exceeds the limit, whatever the instances.
// Blocks shrink as the window fills (1/BLOCK_DIVISOR of what was left, one
// token near the limit), so what one instance holds unspent when another
// reaches the limit is small; it spends it on its own next requests.

export const BLOCK_DIVISOR = 32;
export const MAX_BLOCK = 100;

/** Adds `size` to the shared count of `key` in the window and answers the new total. */
export type SharedIncrement = (key: string, windowStart: number, windowMs: number, size: number) => Promise<number>;

interface Block {
  tokens: number;
  /** The shared count this instance last saw: the next block's size follows what is left. */
  seen: number;
  /** The shared count reached the limit: nothing more in this window. */
  exhausted: boolean;
}

const blocks = new Map<string, Block>();
const leasing = new Map<string, Promise<void>>();
let blocksWindow = 0;

/** How many tokens the next write asks for, after seeing `seen` of `limit` taken. */
export function blockSize(limit: number, seen: number): number {
  return Math.max(1, Math.min(MAX_BLOCK, Math.floor((limit - seen) / BLOCK_DIVISOR)));
}

/**
 * Takes one token of `key` in the window starting at `windowStart`: true when
 * the request is within the limit. Concurrent requests of one instance wait for
 * one write rather than each writing.
 */
export async function takeToken(
  increment: SharedIncrement,
  key: string,
  limit: number,
  windowStart: number,
  windowMs: number,
): Promise<boolean> {
  // Blocks of ended windows are worthless: drop them when a new window begins.
  if (windowStart > blocksWindow) {
    for (const name of blocks.keys())
      if (Number(name.slice(name.lastIndexOf("\n") + 1)) < windowStart) blocks.delete(name);
    blocksWindow = windowStart;
  }
  const name = `${key}\n${windowStart}`;
  for (;;) {
    const block = blocks.get(name);
    if (block && block.tokens > 0) {
      block.tokens--;
      return true;
    }
    if (block?.exhausted) return false;
    const inFlight = leasing.get(name);
    if (inFlight) {
      await inFlight;
      continue;
    }
    const lease = (async () => {
      const seen = block?.seen ?? 0;
      const size = blockSize(limit, seen);
      const total = await increment(key, windowStart, windowMs, size);
      // Only tokens at or under the limit are granted; the rest of the block was never available.
      const granted = Math.max(0, Math.min(size, limit - (total - size)));
      const current = blocks.get(name);
      blocks.set(name, { tokens: (current?.tokens ?? 0) + granted, seen: total, exhausted: total >= limit });
    })().finally(() => leasing.delete(name));
    leasing.set(name, lease);
    await lease;
  }
}
