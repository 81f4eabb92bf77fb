import "server-only";
import type OpenAI from "openai";
import { z } from "zod";
import { db } from "@/lib/db";
import { log } from "@/lib/log";
import { runSelect, type RunRow } from "@/lib/runs/service";
import { approvalsSettled, PendingApproval } from "./approvals";
import { INSTANCE_ID } from "./lease";
import { driveManagedRun, type LoopSettings } from "./loop";
import { failUnexpectedly } from "./run-state";
import { loopSettingsFor } from "./start";
import { freeStoppedCommit } from "./turn";

// Where a managed run's loop runs: never inside the request that started it.
// `launch` starts the loop in this process, detached; `takeOverRun` goes on
// with a run whose instance stopped, once the lease sweep (./lease.ts) gave it
// to this instance — from the run's last stored step:
// - a model call in flight is made again (the conversation ends with a result);
// - the calls of the last stored answer without a stored result go on under
//   ./turn.ts's rules (a read again only if its retry class allows it, a write
//   never sent again: its commit's status protocol decides);
// - a resume after people's decisions answers its held calls again, each
//   approved commit through the same protocol.

const Messages = z.array(
  z.custom<OpenAI.Chat.ChatCompletionMessageParam>((value) => typeof value === "object" && value !== null),
);

/**
 * Runs the loop in this process without the caller having to wait for it; an error it did not expect ends the
 * run. Answers, for a caller who does wait, the run as stored once the loop stopped (null if it failed so);
 * never rejects.
 */
export function launch(
  run: RunRow,
  messages: OpenAI.Chat.ChatCompletionMessageParam[],
  settings: LoopSettings,
  options: Parameters<typeof driveManagedRun>[3],
): Promise<RunRow | null> {
  return driveManagedRun(run, messages, settings, options).catch((error: unknown) =>
    failUnexpectedly(run, error).then(
      () => null,
      (failure: unknown) => {
        log("error", "run.fail_unrecorded", {
          run: run.id,
          error: failure instanceof Error ? failure.name : "unknown",
        });
        return null;
      },
    ),
  );
}

/** Goes on with a run this instance just claimed from a lapsed lease. */
export async function takeOverRun(ref: { id: string; organizationId: string }): Promise<void> {
  const run = await db.run.findFirst({
    where: { id: ref.id, organizationId: ref.organizationId, status: "active", leaseOwner: INSTANCE_ID },
    select: { ...runSelect, transcript: true },
  });
  if (!run) return;
  const { transcript, ...row } = run;
  try {
    if (!run.agentId) throw new Error("The run's agent was deleted.");
    const settings = await loopSettingsFor(run.organizationId, run.agentId, run.modelId);
    const messages = Messages.parse(transcript ?? []);
    const held = PendingApproval.safeParse(run.pendingApproval);
    if (held.success) {
      // Decided before the resume claimed the run: settled, whatever happened since.
      const proposals = (await approvalsSettled(run.organizationId, held.data.calls)) ?? new Map();
      for (const proposal of proposals.values()) await freeStoppedCommit(run, proposal.id);
      launch(row, messages, settings, { stored: true, recover: true, held: { calls: held.data.calls, proposals } });
    } else launch(row, messages, settings, { stored: true, recover: true });
  } catch (error) {
    await failUnexpectedly(row, error);
  }
}
