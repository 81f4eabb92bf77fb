import "server-only";
import { db } from "@/lib/db";
import { enqueue } from "@/lib/jobs";
import { JOBS } from "@/lib/jobs/names";

/**
 * People decided a proposal: if its run is a managed run waiting in requires_approval, its resume job
 * (lib/agent-loop/resume-approval.ts), which goes on only once every card the run holds is decided.
 */
export async function resumeRunAfterDecision(organizationId: string, runId: string): Promise<void> {
  const run = await db.run.findFirst({ where: { id: runId, organizationId }, select: { status: true } });
  if (run?.status !== "requires_approval") return;
  await enqueue(JOBS.resumeRun, { organizationId, runId }, { singletonKey: `decided:${runId}` });
}
