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

/** A person revised a held proposal: the waiting run also resumes when the revision runs out (its own expiry). */
export async function resumeRunAtExpiry(
  organizationId: string,
  runId: string,
  proposal: { id: string; expiresAt: Date },
) {
  const run = await db.run.findFirst({ where: { id: runId, organizationId }, select: { status: true } });
  if (run?.status !== "requires_approval") return;
  await enqueue(
    JOBS.resumeRun,
    { organizationId, runId },
    { singletonKey: `expiry:${proposal.id}`, startAfter: new Date(proposal.expiresAt.getTime() + 1000) },
  );
}
