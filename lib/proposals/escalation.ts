import "server-only";
import { recordAudit, SYSTEM_ACTOR } from "@/lib/audit/record";
import { db, type Prisma } from "@/lib/db";
import { log } from "@/lib/log";
import { recordProposalEscalated } from "@/lib/webhooks/events";
import { storedPolicy } from "./service";

// Escalation: a rule may say that a proposal still undecided after
// escalate_after_seconds notifies a second group (escalate_to_roles, among the
// roles that may already decide). Its time is written on the proposal when it
// is made (escalateAt); the outbox poll of every instance finds the ones due
// and claims each by a conditional update (escalatedAt still null), so the
// e-mails and the proposal.escalated webhook go out once per proposal however
// many instances poll. The expiry does not move: silence is never consent.

/** Proposals whose escalation came due as of `now` and was not done; a closed or expired one never escalates. */
export const escalationDue = (now: Date): Prisma.ProposalWhereInput => ({
  status: "pending",
  escalatedAt: null,
  escalateAt: { lte: now },
  expiresAt: { gt: now },
});

/** Escalates what is due; answers how many this call escalated (another instance may have taken some). */
export async function escalateDue(now = new Date(), limit = 100): Promise<number> {
  const due = await db.proposal.findMany({
    where: escalationDue(now),
    select: { id: true },
    orderBy: { escalateAt: "asc" },
    take: limit,
  });
  let escalated = 0;
  for (const { id } of due) {
    try {
      if (await escalateOne(id, now)) escalated++;
    } catch (error) {
      log("error", "proposal.escalation_failed", {
        proposal: id,
        error: error instanceof Error ? error.name : "Error",
      });
    }
  }
  return escalated;
}

async function escalateOne(id: string, now: Date): Promise<boolean> {
  return db.$transaction(async (tx) => {
    // The claim: only the write that moves escalatedAt from null records the event, on any instance.
    const claimed = await tx.proposal.updateMany({ where: { id, ...escalationDue(now) }, data: { escalatedAt: now } });
    if (claimed.count !== 1) return false;
    const proposal = await tx.proposal.findUniqueOrThrow({ where: { id } });
    const roles = storedPolicy(proposal).escalate_to_roles ?? [];
    await recordProposalEscalated(tx, proposal, roles);
    await recordAudit(
      {
        organizationId: proposal.organizationId,
        actor: SYSTEM_ACTOR,
        action: "proposal.escalated",
        target: { type: "proposal", id: proposal.id },
        details: { tool: proposal.tool, escalate_to_roles: roles, expires_at: proposal.expiresAt.toISOString() },
      },
      tx,
    );
    return true;
  });
}
