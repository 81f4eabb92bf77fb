import "server-only";
import { db, type DbOrTx } from "@/lib/db";

// A refused write, as a widget visitor may see it. The refusal's reason always
// goes back to the agent (it re-plans with it), but the visitor is a stranger
// to the organization: the reason reaches them only when the approver marked
// it shareable. Since the model read the reason, what it answers after the
// refusal may repeat it, so that answer is withheld too unless shareable.

export const REFUSED_MESSAGE = {
  fr: "Votre demande n'a pas été acceptée.",
  en: "Your request was not accepted.",
} as const;

export interface RunRefusal {
  /** The approver's reason, or null when it may not be shown to the visitor. */
  reason: string | null;
  shareable: boolean;
}

/** The first refused proposal of each run, if any (a run stops at the first refusal it is told of). */
export async function runRefusals(
  organizationId: string,
  runIds: string[],
  tx: DbOrTx = db,
): Promise<Map<string, RunRefusal>> {
  if (runIds.length === 0) return new Map();
  const refused = await tx.proposal.findMany({
    where: { organizationId, runId: { in: runIds }, status: "refused" },
    orderBy: [{ createdAt: "asc" }, { id: "asc" }],
    select: { runId: true, decisions: { where: { decision: "refuse" }, select: { reason: true, shareReason: true } } },
  });
  const byRun = new Map<string, RunRefusal>();
  for (const proposal of refused) {
    if (byRun.has(proposal.runId)) continue;
    const decision = proposal.decisions[0];
    const shareable = decision?.shareReason === true;
    byRun.set(proposal.runId, { shareable, reason: shareable ? (decision?.reason ?? null) : null });
  }
  return byRun;
}

/** What the visitor is told of a refused turn: plain words, the reason and the agent's answer only if shareable. */
export function refusalForVisitor(refusal: RunRefusal, answer: string | null, language: "fr" | "en") {
  return {
    message: REFUSED_MESSAGE[language],
    reason: refusal.shareable ? refusal.reason : null,
    text: refusal.shareable ? answer : null,
  };
}
