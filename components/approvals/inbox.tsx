"use client";

import Link from "next/link";
import { useState } from "react";
import { Badge } from "@/components/ui/badge";
import { EmptyState } from "@/components/ui/empty-state";
import { Table, Td, Th } from "@/components/ui/table";
import { formatMoney } from "@/lib/proposals/money";
import type { ProposalObject } from "@/lib/proposals/schemas";
import { BatchBar } from "./batch-bar";
import { ExpiryCountdown, useNow } from "./countdown";
import { environmentLabels, proposalStatusLabels, proposalStatusTones, requesterInWords, STALE_NOTICE } from "./format";
import { usePendingProposals, useRecentProposals } from "./queries";
import { ErrorText } from "@/components/ui/error-text";

const dateFormat = new Intl.DateTimeFormat("fr-FR", { dateStyle: "short", timeStyle: "short" });

function Scope({ proposal }: { proposal: ProposalObject }) {
  const parts = [
    proposal.amount ? formatMoney(proposal.amount) : null,
    proposal.recipients
      ? `${proposal.recipients.length} destinataire${proposal.recipients.length > 1 ? "s" : ""}`
      : null,
    proposal.records_affected > 1 ? `${proposal.records_affected} enregistrements` : null,
    proposal.irreversible ? "irréversible" : null,
  ].filter(Boolean);
  return <span className="text-slate-600">{parts.join(" · ") || "1 enregistrement, réversible"}</span>;
}

function Requester({ proposal }: { proposal: ProposalObject }) {
  const { agent, via } = requesterInWords(proposal.requester);
  return (
    <div className="text-sm">
      <div className={proposal.requester.agent ? "font-medium" : "text-slate-600 italic"}>{agent}</div>
      <div className="text-xs text-slate-500">{via}</div>
    </div>
  );
}

/**
 * The inbox: pending first, soonest expiry first, refreshed on its own; then
 * what was decided recently. A card leaves the pending list when the server
 * stops listing it (decided, superseded) or as soon as its own expiry passes.
 */
export function ApprovalInbox() {
  const pending = usePendingProposals();
  const recent = useRecentProposals();
  const now = useNow();
  const waiting = pending.data?.data.filter((p) => new Date(p.expires_at).getTime() > now) ?? [];
  const [selectedIds, setSelectedIds] = useState<ReadonlySet<string>>(new Set());
  // A card that left the list (decided, expired) leaves the selection with it.
  const selected = waiting.filter((p) => selectedIds.has(p.id));
  const toggle = (id: string) =>
    setSelectedIds((current) => {
      const next = new Set(current);
      if (next.has(id)) next.delete(id);
      else next.add(id);
      return next;
    });
  return (
    <div className="space-y-10">
      <section aria-labelledby="pending-title" className="space-y-3">
        <h2 id="pending-title" className="text-lg font-semibold">
          En attente de décision {pending.data && <span className="text-slate-500">({waiting.length})</span>}
        </h2>
        {pending.isPending ? (
          <p className="text-sm text-slate-500">Chargement…</p>
        ) : pending.isError ? (
          <ErrorText>{pending.error.message}</ErrorText>
        ) : waiting.length === 0 ? (
          <EmptyState title="Rien à décider">
            Les écritures proposées par vos agents apparaîtront ici, sans recharger la page.
          </EmptyState>
        ) : (
          <>
            <BatchBar selected={selected} onDone={() => setSelectedIds(new Set())} />
            <Table caption="Propositions en attente, la plus proche de l'expiration d'abord" stacked>
              <thead>
                <tr>
                  <Th>
                    <span className="sr-only">Sélection</span>
                  </Th>
                  <Th>Effet</Th>
                  <Th>Demandée par</Th>
                  <Th>Portée</Th>
                  <Th>Quorum</Th>
                  <Th>Expiration</Th>
                </tr>
              </thead>
              <tbody className="divide-y divide-slate-100" data-testid="pending-list">
                {waiting.map((p) => (
                  <tr key={p.id} className="hover:bg-slate-50" data-testid="pending-card">
                    <Td className="w-8">
                      <input
                        type="checkbox"
                        className="size-4"
                        aria-label={`Sélectionner : ${p.effect}`}
                        checked={selectedIds.has(p.id)}
                        onChange={() => toggle(p.id)}
                      />
                    </Td>
                    <Td className="max-w-xl">
                      <Link
                        href={`/approbations/${p.id}`}
                        className="font-medium text-slate-900 hover:text-brand-700 hover:underline"
                      >
                        {p.effect}
                      </Link>
                      <div className="mt-1 flex flex-wrap gap-2">
                        <Badge tone={p.environment === "production" ? "danger" : "neutral"}>
                          {environmentLabels[p.environment] ?? p.environment}
                        </Badge>
                        {p.stale && <Badge tone="warning">{STALE_NOTICE}</Badge>}
                        {p.escalated_at && (
                          <Badge tone="warning" testId="escalated">
                            Escaladée
                          </Badge>
                        )}
                      </div>
                    </Td>
                    <Td label="Demandée par">
                      <Requester proposal={p} />
                    </Td>
                    <Td label="Portée">
                      <Scope proposal={p} />
                    </Td>
                    <Td className="whitespace-nowrap tabular-nums" label="Quorum">
                      {p.approvals.count} / {p.approvals.required}
                    </Td>
                    <Td className="whitespace-nowrap" label="Expiration">
                      <ExpiryCountdown expiresAt={p.expires_at} />
                    </Td>
                  </tr>
                ))}
              </tbody>
            </Table>
          </>
        )}
      </section>
      <section aria-labelledby="recent-title" className="space-y-3">
        <h2 id="recent-title" className="text-lg font-semibold">
          Décidées récemment
        </h2>
        {recent.data && recent.data.data.length > 0 ? (
          <Table caption="Propositions décidées récemment">
            <thead>
              <tr>
                <Th>Effet</Th>
                <Th>État</Th>
                <Th>Créée</Th>
              </tr>
            </thead>
            <tbody className="divide-y divide-slate-100">
              {recent.data.data.map((p) => (
                <tr key={p.id}>
                  <Td className="max-w-xl">
                    <Link href={`/approbations/${p.id}`} className="hover:text-brand-700 hover:underline">
                      {p.effect}
                    </Link>
                  </Td>
                  <Td>
                    <Badge tone={proposalStatusTones[p.status]}>{proposalStatusLabels[p.status]}</Badge>
                  </Td>
                  <Td className="whitespace-nowrap text-slate-600">{dateFormat.format(new Date(p.created_at))}</Td>
                </tr>
              ))}
            </tbody>
          </Table>
        ) : (
          <p className="text-sm text-slate-500">{recent.isPending ? "Chargement…" : "Aucune décision récente."}</p>
        )}
      </section>
    </div>
  );
}
