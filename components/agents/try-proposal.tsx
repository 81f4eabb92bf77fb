"use client";

import Link from "next/link";
import { blockedReason } from "@/components/approvals/approval-screen";
import { ChangesTable } from "@/components/approvals/changes-table";
import { DecisionPanel } from "@/components/approvals/decision-panel";
import { proposalStatusLabels, proposalStatusTones } from "@/components/approvals/format";
import { useProposal } from "@/components/approvals/queries";
import { Badge } from "@/components/ui/badge";
import type { Role } from "@/lib/auth/scopes";
import { ErrorText } from "@/components/ui/error-text";

/**
 * A write the model asked for, inline in the conversation: the stored canonical
 * proposal (never the model's words), a link to its approval screen, and for a
 * member the rules let decide, the same decision panel as that screen (same
 * endpoint, same hash check).
 */
export function TryProposalCard({ id, viewer }: { id: string; viewer: { id: string; role: Role } }) {
  const query = useProposal(id);
  if (query.isPending) return <p className="text-xs text-slate-500">Chargement de la proposition…</p>;
  if (query.isError) return <ErrorText small>{query.error.message}</ErrorText>;
  const proposal = query.data;
  const blocked = blockedReason(proposal, viewer);
  return (
    <div className="space-y-3 rounded-md border border-amber-300 bg-amber-50 p-3" data-testid="try-proposal">
      <div className="flex flex-wrap items-center gap-2">
        <Badge tone={proposalStatusTones[proposal.status]}>{proposalStatusLabels[proposal.status]}</Badge>
        <p className="text-sm font-medium">{proposal.effect}</p>
      </div>
      <ChangesTable changes={proposal.changes} />
      <Link href={`/approbations/${proposal.id}`} className="text-sm text-brand-700 hover:underline">
        Ouvrir l’écran d’approbation
      </Link>
      {proposal.status === "pending" &&
        (blocked ? (
          <p className="text-xs text-slate-600">{blocked}</p>
        ) : (
          <DecisionPanel proposal={proposal} expired={false} stale={proposal.stale} blockedReason={null} />
        ))}
    </div>
  );
}
