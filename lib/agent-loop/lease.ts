import "server-only";
import { randomBytes } from "node:crypto";
import { db } from "@/lib/db";
import { env } from "@/lib/env";
import { log } from "@/lib/log";

// Who executes an active managed run. The instance whose loop drives the run
// holds its lease (Run.leaseOwner, Run.leaseExpiresAt) and renews it with a
// heartbeat; every write the loop makes is conditional on still holding it
// (the fence: a loop that lost its lease writes nothing more). When the
// instance dies, its lease lapses and the periodic sweep of any instance
// claims the run with one conditional update — exactly one instance wins —
// and goes on from the run's last stored step (./takeover.ts).
//
// The heartbeat also carries cancellation across instances: a cancelled run
// is no longer `active`, the renewal changes nothing, and the loop's signal
// is aborted at once (calls in flight stop as their contracts allow).

const globalForLease = globalThis as unknown as { guichetInstanceId?: string };

/**
 * This process's id as a lease owner: one per process, shared by its route bundles and its
 * background work (module instances may differ, globalThis does not).
 */
export const INSTANCE_ID = (globalForLease.guichetInstanceId ??= `inst_${randomBytes(8).toString("hex")}`);

/** The end of a lease taken or renewed now. */
export function leaseUntil(): Date {
  return new Date(Date.now() + env.GUICHET_RUN_LEASE_MS);
}

/** The lease columns of a run this instance starts (or resumes) executing. */
export function takenLease() {
  return { leaseOwner: INSTANCE_ID, leaseExpiresAt: leaseUntil() };
}

/** The lease columns of a run that leaves `active`: nobody executes it any more. */
export const NO_LEASE = { leaseOwner: null, leaseExpiresAt: null } as const;

/** Why a loop's signal was aborted by its heartbeat. */
export class LeaseLost extends Error {
  override name = "LeaseLost";
}

export interface HeldLease {
  /** Aborted when the run is no longer this instance's to execute (cancelled, ended, taken over). */
  signal: AbortSignal;
  release(): void;
}

/** Renews the run's lease every third of its length while the loop runs; aborts `signal` once it is lost. */
export function holdLease(run: { id: string; organizationId: string }): HeldLease {
  const controller = new AbortController();
  const beat = async () => {
    try {
      const renewed = await db.run.updateMany({
        where: { id: run.id, organizationId: run.organizationId, status: "active", leaseOwner: INSTANCE_ID },
        data: { leaseExpiresAt: leaseUntil() },
      });
      if (renewed.count === 0) controller.abort(new LeaseLost("The run is no longer this instance's to execute."));
    } catch (error) {
      // The database is away for a moment: the next beat tries again, well before the lease lapses.
      log("warn", "run.heartbeat_failed", { run: run.id, error: error instanceof Error ? error.name : "unknown" });
    }
  };
  const timer = setInterval(() => void beat(), Math.max(250, Math.floor(env.GUICHET_RUN_LEASE_MS / 3)));
  timer.unref();
  return { signal: controller.signal, release: () => clearInterval(timer) };
}

/**
 * Claims active managed runs whose lease lapsed (their instance died) and hands each to `takeOver`.
 * The claim is one conditional update on the lapsed lease: of several instances sweeping at once,
 * exactly one changes the row and executes the run. Answers how many runs this instance took.
 */
export async function sweepLapsedLeases(
  takeOver: (run: { id: string; organizationId: string }) => void,
): Promise<number> {
  const now = new Date();
  const lapsed = await db.run.findMany({
    where: { status: "active", modelId: { not: null }, leaseExpiresAt: { lt: now }, expiresAt: { gt: now } },
    select: { id: true, organizationId: true, leaseOwner: true },
    take: 50,
  });
  let taken = 0;
  for (const run of lapsed) {
    const claimed = await db.run.updateMany({
      where: {
        id: run.id,
        organizationId: run.organizationId,
        status: "active",
        leaseOwner: run.leaseOwner,
        leaseExpiresAt: { lt: new Date() },
      },
      data: takenLease(),
    });
    if (claimed.count !== 1) continue;
    taken += 1;
    log("info", "run.taken_over", { run: run.id });
    takeOver({ id: run.id, organizationId: run.organizationId });
  }
  return taken;
}
