import "server-only";
import { env } from "@/lib/env";
import { repeat } from "@/lib/jobs";
import { JOBS } from "@/lib/jobs/names";
import { sweepStaleOperations } from "./sweep";

// Operations' background work, registered at server start (lib/jobs/start.ts): the sweep that settles, by the
// service's status, writes whose sender never recorded the answer (./sweep.ts).

export async function registerOperationJobs(): Promise<void> {
  await repeat(JOBS.operationSweep, env.GUICHET_OPERATION_SWEEP_MS / 1000, async () => {
    await sweepStaleOperations();
  });
}
