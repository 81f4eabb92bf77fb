import { randomBytes } from "node:crypto";
import { afterAll, describe, expect, it } from "vitest";
import { testDb, until } from "./helpers";

// The job interface on the suite's database: pg-boss on PostgreSQL, the embedded
// runner on SQLite. The queues run in this test process (the server does not
// work these names), so every handler call is observed here.

const { createJobQueue } = await import("@/lib/jobs");
const queues: Awaited<ReturnType<typeof createJobQueue>>[] = [];
function queue() {
  const created = createJobQueue();
  queues.push(created);
  return created;
}
/** The states of a queue's jobs as stored: the embedded runner's table, or pg-boss's. */
async function storedStates(name: string): Promise<string[]> {
  const db = await testDb();
  const sqlite = (process.env.DATABASE_URL ?? "").startsWith("file:");
  const rows = sqlite
    ? await db.$queryRawUnsafe<{ state: string }[]>(`SELECT state FROM "BackgroundJob" WHERE name = ?`, name)
    : await db.$queryRawUnsafe<{ state: string }[]>(
        `SELECT state::text AS state FROM pgboss.job WHERE name = $1`,
        name,
      );
  return rows.map((row) => row.state);
}
const unique = (what: string) => `test.${what}.${randomBytes(4).toString("hex")}`;

afterAll(async () => {
  await Promise.all(queues.map((q) => q.stop()));
});

describe("job interface", () => {
  it("runs an enqueued job once with its data", async () => {
    const q = queue();
    const name = unique("echo");
    const seen: { data: object; attempt: number }[] = [];
    await q.work<{ n: number }>(name, async (data, job) => {
      seen.push({ data, attempt: job.attempt });
    });
    const id = await q.enqueue(name, { n: 7 });
    expect(id).toEqual(expect.any(String));
    await until(async () => seen.length === 1, "the job to run");
    expect(seen).toEqual([{ data: { n: 7 }, attempt: 1 }]);
  });

  it("does not start a job before its startAfter", async () => {
    const q = queue();
    const name = unique("later");
    const startedAt: number[] = [];
    await q.work(name, async () => {
      startedAt.push(Date.now());
    });
    const startAfter = new Date(Date.now() + 1500);
    await q.enqueue(name, {}, { startAfter });
    await until(async () => startedAt.length === 1, "the delayed job");
    expect(startedAt[0]).toBeGreaterThanOrEqual(startAfter.getTime());
  });

  it("keeps one waiting job per singleton key, and takes a new one once it started", async () => {
    const q = queue();
    const name = unique("single");
    const later = new Date(Date.now() + 60 * 60_000);
    const first = await q.enqueue(name, { i: 1 }, { singletonKey: "run_a", startAfter: later });
    expect(first).toEqual(expect.any(String));
    expect(await q.enqueue(name, { i: 2 }, { singletonKey: "run_a" })).toBeNull();
    expect(await q.enqueue(name, { i: 3 }, { singletonKey: "run_b" })).toEqual(expect.any(String));
    // Keyless jobs never collide with each other.
    expect(await q.enqueue(name, { i: 4 }, { startAfter: later })).toEqual(expect.any(String));
    expect(await q.enqueue(name, { i: 5 }, { startAfter: later })).toEqual(expect.any(String));

    const running: string[] = [];
    let release!: () => void;
    const held = new Promise<void>((resolve) => (release = resolve));
    const key = unique("held");
    await q.work<{ key: string }>(key, async (data) => {
      running.push(data.key);
      await held;
    });
    await q.enqueue(key, { key: "x" }, { singletonKey: "x" });
    await until(async () => running.length === 1, "the first job to start");
    // It started: a new job with the same key waits behind it instead of being dropped.
    expect(await q.enqueue(key, { key: "x" }, { singletonKey: "x" })).toEqual(expect.any(String));
    release();
    await until(async () => running.length === 2, "the second job");
  });

  it("retries a failed attempt within the job's limit, then stops", async () => {
    const q = queue();
    const flaky = unique("flaky");
    const attempts: number[] = [];
    await q.work(flaky, async (_data, job) => {
      attempts.push(job.attempt);
      if (job.attempt === 1) throw new Error("first attempt fails");
    });
    await q.enqueue(flaky, {}, { retryDelaySeconds: 0 });
    await until(async () => attempts.length === 2, "the retry");
    expect(attempts).toEqual([1, 2]);

    const broken = unique("broken");
    const tries: number[] = [];
    await q.work(broken, async (_data, job) => {
      tries.push(job.attempt);
      throw new Error("always fails");
    });
    await q.enqueue(broken, {}, { retryLimit: 1, retryDelaySeconds: 0 });
    await until(async () => tries.length === 2, "the last attempt");
    // Failed for good once its retries are spent: no third attempt comes.
    await until(async () => (await storedStates(broken)).includes("failed"), "the job to fail");
    expect(tries).toEqual([1, 2]);
  });

  it("two instances working one queue run each job exactly once", async () => {
    const [a, b] = [queue(), queue()];
    const name = unique("race");
    const runs = new Map<number, string[]>();
    const handler = (who: string) => async (data: { i: number }) => {
      runs.set(data.i, [...(runs.get(data.i) ?? []), who]);
    };
    await a.work(name, handler("a"));
    await b.work(name, handler("b"));
    for (let i = 0; i < 20; i += 1) await (i % 2 ? a : b).enqueue(name, { i });
    await until(async () => runs.size === 20, "every job");
    expect([...runs.values()].every((who) => who.length === 1)).toBe(true);
  });

  it("stores embedded jobs in the database (SQLite) or in pg-boss's schema (PostgreSQL)", async () => {
    const q = queue();
    const name = unique("stored");
    await q.enqueue(name, { k: "v" }, { startAfter: new Date(Date.now() + 60 * 60_000) });
    expect(await storedStates(name)).toEqual(["created"]);
  });

  it("refuses a job name with characters a queue name cannot hold", async () => {
    await expect(queue().enqueue("Bad Name!", {})).rejects.toThrow(/Invalid job name/);
  });
});
