import "server-only";
import { db } from "@/lib/db";
import { storedPolicy } from "@/lib/proposals/service";
import { effectiveStatus } from "@/lib/proposals/state";
import { isoOffset } from "@/lib/time";

// What an MCP client gets back when a call becomes a proposal: enough for the
// model to tell the person what will happen and where to approve it, and the
// id to commit with — nothing to approve it with (approval is a person's act).

export interface ProposalCard {
  id: string;
  status: string;
  effect: string;
  changes: unknown;
  recipients: string[] | null;
  amount: { value_minor: number; currency: string } | null;
  irreversible: boolean;
  approvals_required: number;
  expires_at: string;
  approval_url: string;
  commit: { tool: string; arguments: { proposal_id: string } };
}

export async function proposalCard(
  organizationId: string,
  proposalId: string,
  consoleOrigin: string,
): Promise<ProposalCard | null> {
  const row = await db.proposal.findFirst({ where: { id: proposalId, organizationId } });
  if (!row) return null;
  return {
    id: row.id,
    status: effectiveStatus(row),
    effect: row.effect,
    changes: row.changes,
    recipients: (row.recipients as string[] | null) ?? null,
    amount:
      row.amountValueMinor !== null && row.amountCurrency
        ? { value_minor: Number(row.amountValueMinor), currency: row.amountCurrency }
        : null,
    irreversible: row.irreversible,
    approvals_required: storedPolicy(row).approvals_required,
    expires_at: isoOffset(row.expiresAt),
    approval_url: `${consoleOrigin}/approbations/${row.id}`,
    commit: { tool: row.tool, arguments: { proposal_id: row.id } },
  };
}
