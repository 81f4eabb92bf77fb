import "server-only";
import { z } from "zod";
import { db } from "@/lib/db";
import { enqueue } from "@/lib/jobs";
import { JOBS } from "@/lib/jobs/names";
import { dispatchToolCall, type ToolEnvelope } from "@/lib/proposals/dispatch";
import { effectiveStatus as proposalStatus } from "@/lib/proposals/state";
import { openerOf } from "@/lib/runs/driver";
import { emitRunEvent, toolCallCompleted } from "./events";
import { toolMessageContent } from "./prompt";

// A managed run's write waits for people. The tool call whose preview (or
// write) made a pending proposal is held: the model gets no answer for it yet,
// the run waits in `requires_approval` with the held calls stored on the run,
// and when every proposal is decided or expired a job resumes the run with one
// answer per held call — the commit's envelope (Guichet commits through the
// same dispatcher path as any caller), APPROVAL_REFUSED with the reason, or
// APPROVAL_EXPIRED. The commit is streamed like any tool call (tool_call.started,
// tool_call.completed), under the id of the model's call it answers.

export const HeldCall = z.object({ tool_call_id: z.string(), proposal_id: z.string() });
export type HeldCall = z.infer<typeof HeldCall>;
export const PendingApproval = z.object({ calls: z.array(HeldCall).min(1) });
export type PendingApproval = z.infer<typeof PendingApproval>;

/** The proposal a tool call left waiting for people, if any: a preview's pending card, or a write's APPROVAL_REQUIRED. */
export function pendingProposalOf(envelope: ToolEnvelope): string | null {
  if (!envelope.ok) {
    return envelope.error.code === "APPROVAL_REQUIRED" && envelope.error.proposal_id
      ? envelope.error.proposal_id
      : null;
  }
  const proposal = z
    .object({ id: z.string(), status: z.string() })
    .nullable()
    .catch(null)
    .parse(envelope.evidence.proposal ?? null);
  return proposal?.status === "pending" ? proposal.id : null;
}

/**
 * After the run paused: a resume now (a decision made before the pause found no waiting run to
 * resume) and one at each proposal's expiry; decisions enqueue their own. Each resume goes on
 * only once no held proposal is pending.
 */
export async function scheduleResumes(organizationId: string, runId: string, held: HeldCall[]): Promise<void> {
  await enqueue(JOBS.resumeRun, { organizationId, runId }, { singletonKey: `decided:${runId}` });
  const proposals = await db.proposal.findMany({
    where: { organizationId, id: { in: held.map((call) => call.proposal_id) } },
    select: { id: true, expiresAt: true },
  });
  for (const proposal of proposals)
    await enqueue(
      JOBS.resumeRun,
      { organizationId, runId },
      { singletonKey: `expiry:${proposal.id}`, startAfter: new Date(proposal.expiresAt.getTime() + 1000) },
    );
}

function refusalContent(
  code: "APPROVAL_REFUSED" | "APPROVAL_EXPIRED" | "PROPOSAL_CONSUMED",
  proposalId: string,
  message: string,
) {
  return JSON.stringify({
    untrusted_content: null,
    error: { code, message, retryable: false, field: null, proposal_id: proposalId },
  });
}

const settledInclude = { decisions: { where: { decision: "refuse" }, orderBy: { createdAt: "asc" as const } } };

/** The proposal a held call now stands for: the held one, or the last revision people made of it. */
async function currentRevision(organizationId: string, proposalId: string) {
  let proposal = await db.proposal.findFirst({ where: { organizationId, id: proposalId }, include: settledInclude });
  for (let hops = 0; proposal?.status === "revised" && proposal.supersededBy && hops < 50; hops++)
    proposal = await db.proposal.findFirst({
      where: { organizationId, id: proposal.supersededBy },
      include: settledInclude,
    });
  return proposal;
}

/**
 * Whether every held proposal (or the revision a person made of it) was decided or ran out: null while one still
 * waits for people. Keyed by the held call's proposal id.
 */
export async function approvalsSettled(organizationId: string, held: HeldCall[]) {
  const now = new Date();
  const byId = new Map<string, NonNullable<Awaited<ReturnType<typeof currentRevision>>>>();
  for (const call of held) {
    const proposal = await currentRevision(organizationId, call.proposal_id);
    if (proposal) byId.set(call.proposal_id, proposal);
  }
  if (held.some((call) => byId.get(call.proposal_id) && proposalStatus(byId.get(call.proposal_id)!, now) === "pending"))
    return null;
  return byId;
}

/**
 * The answer to each held call, in the order the model made them: an approved proposal is committed
 * now through the dispatcher (its step, its operation, its idempotency key), the others are refusals.
 */
export type SettledProposals = NonNullable<Awaited<ReturnType<typeof approvalsSettled>>>;

/**
 * `recovered`: answered again by the instance that took the run over (./takeover.ts); a proposal already
 * consumed may be this run's own commit, made before the stop: the commit by its key answers what it did.
 */
export async function answersFor(
  run: { id: string; organizationId: string; apiKeyId: string | null; memberId: string | null },
  held: HeldCall[],
  proposals: SettledProposals,
  signal: AbortSignal,
  recovered = false,
): Promise<{ tool_call_id: string; content: string }[]> {
  const answers: { tool_call_id: string; content: string }[] = [];
  for (const call of held) {
    const proposal = proposals.get(call.proposal_id);
    const status = proposal ? proposalStatus(proposal) : "expired";
    let content: string;
    // Taken over after the approval lapsed: a commit the stopped instance had already sent is settled by the
    // service's status (lib/proposals/commit.ts), never answered as expired while the write may have happened.
    const sentBeforeStop =
      recovered &&
      proposal !== undefined &&
      status === "expired" &&
      (await db.operation.count({
        where: { organizationId: run.organizationId, proposalId: proposal.id, status: "running" },
      })) > 0;
    if (proposal && (status === "approved" || (recovered && status === "consumed") || sentBeforeStop)) {
      // The commit is reported under the held call's id: the call the model made gets its outcome now.
      const startedAt = performance.now();
      const ref = { id: call.tool_call_id, name: proposal.tool };
      await emitRunEvent(run, "tool_call.started", { tool_call_id: ref.id, tool: ref.name, client: false });
      const envelope = await dispatchToolCall({
        organizationId: run.organizationId,
        runId: run.id,
        // A managed run resumes as its opener.
        driver: openerOf(run),
        tool: proposal.tool,
        arguments: { proposal_id: proposal.id },
        signal,
      });
      await emitRunEvent(run, "tool_call.completed", toolCallCompleted(ref, envelope, startedAt));
      content = JSON.stringify({
        approval: {
          proposal_id: proposal.id,
          status: "approved",
          // A person revised the call's arguments: the commit's evidence says how.
          ...(proposal.id !== call.proposal_id ? { revised_from: call.proposal_id } : {}),
        },
        ...JSON.parse(toolMessageContent(envelope)),
      });
    } else if (proposal && status === "refused") {
      const reason = proposal.decisions[0]?.reason ?? "";
      content = refusalContent(
        "APPROVAL_REFUSED",
        proposal.id,
        `People refused proposal ${proposal.id}; nothing was written. Reason: ${reason}`,
      );
    } else if (proposal && status === "consumed") {
      content = refusalContent(
        "PROPOSAL_CONSUMED",
        proposal.id,
        `Proposal ${proposal.id} was already committed by another call; nothing more was written.`,
      );
    } else {
      content = refusalContent(
        "APPROVAL_EXPIRED",
        proposal?.id ?? call.proposal_id,
        `Proposal ${call.proposal_id} was not decided in time (or was replaced); nothing was written. Propose again if the change is still needed.`,
      );
    }
    answers.push({ tool_call_id: call.tool_call_id, content });
  }
  return answers;
}
