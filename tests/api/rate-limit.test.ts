import { randomUUID } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { blockSize } from "@/lib/limits/lease";
import { createTenant, suiteNetwork, testDb, type Tenant } from "./helpers";
import { startApp } from "./server";

// Instances on the same database as the suite's: the count is shared through
// the database, so these also prove the limit holds across instances. Each
// instance takes the shared count in blocks (lib/limits/lease.ts).
type App = Awaited<ReturnType<typeof startApp>>;
let tenant: Tenant;

const modelsOn = (app: App, key: string) =>
  fetch(`${app.baseUrl}/v1/models`, { headers: { authorization: `Bearer ${key}` } });

/**
 * Statuses grouped by the fixed one-minute window they were sent in. A request
 * sent in one minute and answered in the next may have been counted in either:
 * the windows it touches are left out, and `whole` says none was.
 */
function byWindow(results: { at: number; end: number; status: number }[]) {
  const windows = new Map<number, { calls: number; ok: number }>();
  const unsure = new Set<number>();
  for (const r of results) {
    const w = windows.get(Math.floor(r.at / 60_000)) ?? { calls: 0, ok: 0 };
    w.calls++;
    if (r.status === 200) w.ok++;
    windows.set(Math.floor(r.at / 60_000), w);
    if (Math.floor(r.end / 60_000) !== Math.floor(r.at / 60_000))
      for (const minute of [Math.floor(r.at / 60_000), Math.floor(r.end / 60_000)]) unsure.add(minute);
  }
  const sure = [...windows].filter(([minute]) => !unsure.has(minute)).map(([, w]) => w);
  return { sure, whole: windows.size === 1 && unsure.size === 0 };
}

beforeAll(async () => {
  tenant = await createTenant("pro");
});

describe("a tiny limit", () => {
  let app: App;
  beforeAll(async () => {
    app = await startApp({
      ...process.env,
      NODE_ENV: "production",
      ...suiteNetwork(),
      GUICHET_RATE_LIMIT_PER_MINUTE: "3",
    });
  });
  afterAll(async () => app?.stop());

  it("answers 429 rate_limited with Retry-After past the per-key limit", async () => {
    // Past 3 in a window, refused: within 7 requests even if the minute turns once during the loop.
    const statuses: number[] = [];
    while (statuses.length < 7 && !statuses.includes(429)) statuses.push((await modelsOn(app, tenant.key)).status);
    expect(statuses).toContain(429);
    expect(statuses.filter((s) => s === 200).length).toBeGreaterThanOrEqual(3);
    const refused = await modelsOn(app, tenant.key);
    expect(refused.status).toBe(429);
    const body = await refused.json();
    expect(body.error.code).toBe("rate_limited");
    expect(Number(refused.headers.get("retry-after"))).toBeGreaterThanOrEqual(1);
    expect(Number(refused.headers.get("retry-after"))).toBeLessThanOrEqual(60);
  });
});

// A limit large enough for blocks of several tokens (blockSize(100, 0) = 3).
const LIMIT = 100;

describe("two instances taking one key's count in blocks", () => {
  let apps: App[] = [];
  beforeAll(async () => {
    const env = { ...process.env, NODE_ENV: "production" as const, ...suiteNetwork() };
    apps = await Promise.all([0, 1].map(() => startApp({ ...env, GUICHET_RATE_LIMIT_PER_MINUTE: String(LIMIT) })));
  });
  afterAll(async () => Promise.all(apps.map((app) => app.stop())));

  it("admits exactly the limit when requests alternate between the instances", async () => {
    expect(blockSize(LIMIT, 0)).toBeGreaterThan(1);
    const key = await tenant.keyWith(["agents:read"]);
    const results: { at: number; end: number; status: number }[] = [];
    for (let i = 0; i < LIMIT + 30; i++) {
      const at = Date.now();
      const { status } = await modelsOn(apps[i % 2], key);
      results.push({ at, end: Date.now(), status });
    }
    expect(results.every((r) => r.status === 200 || r.status === 429)).toBe(true);
    const { sure, whole } = byWindow(results);
    for (const w of sure) expect(w.ok).toBeLessThanOrEqual(LIMIT);
    // In a window that saw every request (the usual case), the limit is reached exactly:
    // what one instance held when the other was refused served its own next requests.
    if (whole) expect(sure[0].ok).toBe(LIMIT);
  });

  it("never admits more than the limit when both instances take tokens at once", async () => {
    const key = await tenant.keyWith(["agents:read"]);
    const results = await Promise.all(
      Array.from({ length: 2 * LIMIT }, async (_, i) => {
        const at = Date.now();
        const { status } = await modelsOn(apps[i % 2], key);
        return { at, end: Date.now(), status };
      }),
    );
    expect(results.every((r) => r.status === 200 || r.status === 429)).toBe(true);
    const { sure, whole } = byWindow(results);
    for (const w of sure) expect(w.ok).toBeLessThanOrEqual(LIMIT);
    // Unspent tokens are at most one block per instance: the others were spent on requests.
    const ok = results.filter((r) => r.status === 200).length;
    if (whole) expect(ok).toBeGreaterThanOrEqual(LIMIT - 2 * blockSize(LIMIT, 0));
    const db = await testDb();
    const { hashSecret } = await import("@/lib/api-keys/service");
    const { id } = await db.apiKey.findUniqueOrThrow({ where: { secretHash: hashSecret(key) } });
    const stored = await db.rateLimitWindow.findMany({ where: { key: `api:${id}` } });
    // The shared count holds every admitted request.
    expect(stored.reduce((sum, w) => sum + w.count, 0)).toBeGreaterThanOrEqual(ok);
  });
});

describe("forgetting ended windows", () => {
  it("forgets each window after its own end: daily and lifetime counts outlive minute windows", async () => {
    const { hitExactly, forgetEndedWindows } = await import("@/lib/http/rate-limit");
    const key = `forget:${randomUUID()}`;
    const DAY = 24 * 3_600_000;
    const LIFETIME = 100 * 365 * DAY;
    // Late in a day, so the daily window started hours before the minute windows.
    const now = Math.floor(Date.now() / DAY) * DAY + 20 * 3_600_000;
    expect((await hitExactly(`${key}:day`, 2, DAY, now)).allowed).toBe(true);
    expect((await hitExactly(`${key}:lifetime`, 2, LIFETIME, now)).allowed).toBe(true);
    await hitExactly(`${key}:minute`, 5, 60_000, now);
    await hitExactly(`${key}:old-minute`, 5, 60_000, now - 2 * 3_600_000);
    await hitExactly(`${key}:yesterday`, 5, DAY, now - 2 * DAY);
    await forgetEndedWindows(now);
    const db = await testDb();
    const left = await db.rateLimitWindow.findMany({ where: { key: { startsWith: key } }, orderBy: { key: "asc" } });
    expect(left.map((w) => [w.key, w.count])).toEqual([
      [`${key}:day`, 1],
      [`${key}:lifetime`, 1],
      [`${key}:minute`, 1],
    ]);
    // The counts go on where they were: the third hit is refused.
    for (const [suffix, windowMs] of [
      ["day", DAY],
      ["lifetime", LIFETIME],
    ] as const) {
      expect((await hitExactly(`${key}:${suffix}`, 2, windowMs, now)).allowed).toBe(true);
      expect((await hitExactly(`${key}:${suffix}`, 2, windowMs, now)).allowed).toBe(false);
    }
  });
});
