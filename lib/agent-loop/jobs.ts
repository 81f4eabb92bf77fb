import "server-only";
import { enqueue, repeat, work } from "@/lib/jobs";
import { JOBS } from "@/lib/jobs/names";
import { log } from "@/lib/log";
import { purgeOldTranscripts } from "@/lib/runs/retention";
import { resumeWaitingRun, sweepWaitingRuns } from "./resume-approval";

// Managed runs' background work, registered at server start (lib/jobs/start.ts).

const SWEEP_SECONDS = 60;
const RETENTION_SECONDS = 60 * 60;

export async function registerRunJobs(): Promise<void> {
  await work(JOBS.resumeRun, resumeWaitingRun);
  await repeat(JOBS.approvalSweep, SWEEP_SECONDS, () =>
    sweepWaitingRuns((data) => enqueue(JOBS.resumeRun, data, { singletonKey: `decided:${data.runId}` })),
  );
  await repeat(JOBS.runRetention, RETENTION_SECONDS, async () => {
    const purged = await purgeOldTranscripts();
    if (purged) log("info", "runs.transcripts_purged", { runs: purged });
  });
}
