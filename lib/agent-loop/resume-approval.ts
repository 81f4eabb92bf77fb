import "server-only";
import type OpenAI from "openai";
import { z } from "zod";
import { db } from "@/lib/db";
import { effectiveStatus, runSelect } from "@/lib/runs/service";
import { approvalsSettled, PendingApproval } from "./approvals";
import { takenLease } from "./lease";
import { driveManagedRun } from "./loop";
import { loopSettingsFor } from "./start";

// The resume job of a run in requires_approval (JOBS.resumeRun). Any instance
// may run it, several times, after a restart: the state is the database's.
// Until every held proposal is decided or expired it does nothing; then the one
// job whose conditional update moves the run out of requires_approval commits
// the approved proposals and drives the run on. Another instance's job (or a
// second decision's) finds the run already moved and stops, so a proposal is
// committed once.
//
// A resumed run keeps what it started with: its frozen capability set, its
// model and its instructions (the transcript's system message). The agent's
// current temperature, output_schema and client_tools apply, as for a resume
// by tool_outputs.

const Messages = z.array(
  z.custom<OpenAI.Chat.ChatCompletionMessageParam>((value) => typeof value === "object" && value !== null),
);

export async function resumeWaitingRun(data: { organizationId: string; runId: string }): Promise<void> {
  const { organizationId, runId } = data;
  const run = await db.run.findFirst({
    where: { id: runId, organizationId },
    select: { ...runSelect, transcript: true },
  });
  if (!run || effectiveStatus(run) !== "requires_approval" || !run.agentId) return;
  const pending = PendingApproval.safeParse(run.pendingApproval);
  if (!pending.success) return;
  const proposals = await approvalsSettled(organizationId, pending.data.calls);
  if (!proposals) return;
  // A missing provider throws here, before the claim: the job is retried and the run keeps waiting.
  const settings = await loopSettingsFor(organizationId, run.agentId, run.modelId);
  // The held calls stay on the run until their answers are stored: a takeover answers them again.
  const claimed = await db.run.updateMany({
    where: { id: run.id, organizationId, status: "requires_approval", expiresAt: { gt: new Date() } },
    data: { status: "active", ...takenLease() },
  });
  if (claimed.count === 0) return;
  const active = { ...run, status: "active" };
  await driveManagedRun(active, Messages.parse(run.transcript ?? []), settings, {
    held: { calls: pending.data.calls, proposals },
  });
}

/** Runs left in requires_approval whose proposals are all settled (a resume lost with a crashed process): resumed. */
export async function sweepWaitingRuns(resume: (data: { organizationId: string; runId: string }) => Promise<unknown>) {
  const waiting = await db.run.findMany({
    where: { status: "requires_approval", expiresAt: { gt: new Date() } },
    select: { id: true, organizationId: true, pendingApproval: true },
    take: 500,
  });
  for (const run of waiting) {
    const pending = PendingApproval.safeParse(run.pendingApproval);
    if (pending.success && (await approvalsSettled(run.organizationId, pending.data.calls)))
      await resume({ organizationId: run.organizationId, runId: run.id });
  }
}
