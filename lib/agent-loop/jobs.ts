import "server-only";
import { enqueue, repeat, work } from "@/lib/jobs";
import { JOBS } from "@/lib/jobs/names";
import { log } from "@/lib/log";
import { purgeOldTranscripts } from "@/lib/runs/retention";
import { env } from "@/lib/env";
import { sweepLapsedLeases } from "./lease";
import { resumeWaitingRun, sweepWaitingRuns } from "./resume-approval";
import { takeOverRun } from "./takeover";

// Managed runs' background work, registered at server start (lib/jobs/start.ts).

const SWEEP_SECONDS = 60;
const RETENTION_SECONDS = 60 * 60;

export async function registerRunJobs(): Promise<void> {
  await work(JOBS.resumeRun, resumeWaitingRun);
  await repeat(JOBS.approvalSweep, SWEEP_SECONDS, () =>
    sweepWaitingRuns((data) => enqueue(JOBS.resumeRun, data, { singletonKey: `decided:${data.runId}` })),
  );
  // As often as the heartbeat: a run whose instance died goes on about one lease after its last beat. The
  // first sweep runs at start-up, so a restarted instance takes back what it was running once the lease lapsed.
  await repeat(JOBS.leaseSweep, env.GUICHET_RUN_LEASE_MS / 3000, async () => {
    await sweepLapsedLeases((run) =>
      takeOverRun(run).catch((error: unknown) =>
        log("error", "run.takeover_failed", { run: run.id, error: error instanceof Error ? error.name : "unknown" }),
      ),
    );
  });
  await repeat(JOBS.runRetention, RETENTION_SECONDS, async () => {
    const purged = await purgeOldTranscripts();
    if (purged) log("info", "runs.transcripts_purged", { runs: purged });
  });
}
