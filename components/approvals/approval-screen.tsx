"use client";

import { roleBar, selfApprovalBar } from "@/lib/proposals/decider";
import Link from "next/link";
import { Badge } from "@/components/ui/badge";
import { roleLabels, type Role } from "@/lib/auth/scopes";
import { consequencesInWords } from "@/lib/proposals/consequences";
import { formatMoney } from "@/lib/proposals/money";
import type { ProposalObject } from "@/lib/proposals/schemas";
import { ChangesTable } from "./changes-table";
import { Countdown, useRemaining } from "./countdown";
import { DecisionPanel } from "./decision-panel";
import { RevisePanel } from "./revise-panel";
import {
  environmentLabels,
  proposalStatusLabels,
  proposalStatusTones,
  requesterInWords,
  STALE_NOTICE,
  targetInWords,
} from "./format";
import { useProposal } from "./queries";
import { ErrorText } from "@/components/ui/error-text";
import { Card } from "@/components/ui/card";

const dateFormat = new Intl.DateTimeFormat("fr-FR", { dateStyle: "medium", timeStyle: "medium" });

function Section({ title, children }: { title: string; children: React.ReactNode }) {
  return (
    <section className="space-y-2">
      <h2 className="text-sm font-semibold tracking-wide text-slate-500 uppercase">{title}</h2>
      {children}
    </section>
  );
}

/** Why this member cannot decide, or null: the same rules the server applies, said before the click. */
export function blockedReason(proposal: ProposalObject, viewer: { id: string; role: Role }): string | null {
  if (proposal.status !== "pending")
    return `Cette proposition est ${proposalStatusLabels[proposal.status].toLowerCase()} : il n’y a plus rien à décider.`;
  if (roleBar(proposal.policy, viewer.role)) {
    return `La règle « ${proposal.policy.rule} » réserve cette décision aux rôles : ${proposal.policy.approver_roles.map((r) => roleLabels[r]).join(", ")}.`;
  }
  if (proposal.decisions.some((d) => d.member.id === viewer.id))
    return "Vous avez déjà donné votre décision sur cette proposition.";
  const self = selfApprovalBar(
    proposal.policy,
    { requestedBy: proposal.requested_by?.id ?? null, revisedBy: proposal.revision?.revised_by.id ?? null },
    viewer.id,
  );
  if (self?.code === "revised_by_you") return "Vous avez révisé cette écriture : une autre personne doit l’approuver.";
  if (self?.code === "requested_by_you")
    return "Vous avez demandé cette écriture : une autre personne doit la décider.";
  return null;
}

/** The approval screen: rendered only from the stored canonical proposal, never from the agent's words. */
export function ApprovalScreen({ id, viewer }: { id: string; viewer: { id: string; role: Role } }) {
  const query = useProposal(id);
  const remaining = useRemaining(query.data?.expires_at ?? new Date(0).toISOString());
  if (query.isPending) return <p className="text-sm text-slate-500">Chargement…</p>;
  if (query.isError) return <ErrorText>{query.error.message}</ErrorText>;
  const proposal = query.data;
  const live = proposal.status === "pending" || proposal.status === "approved";
  const expired = proposal.status === "expired" || (live && remaining === 0);
  const status = expired ? "expired" : proposal.status;
  const consequences = consequencesInWords(proposal);
  const requester = requesterInWords(proposal.requester);
  const stale = proposal.stale && live && !expired;
  const mayRevise =
    proposal.status === "pending" && !expired && (proposal.policy.approver_roles as string[]).includes(viewer.role);
  return (
    <div className="grid gap-8 lg:grid-cols-[minmax(0,1fr)_22rem]">
      <div className="space-y-6">
        <div className="space-y-2">
          <Link href="/approbations" className="text-sm text-brand-700 hover:underline">
            ← Toutes les approbations
          </Link>
          <div className="flex flex-wrap items-center gap-3">
            <Badge tone={proposalStatusTones[status]}>{proposalStatusLabels[status]}</Badge>
            {live && <Countdown remainingMs={remaining} />}
            <Badge tone={proposal.environment === "production" ? "danger" : "neutral"} testId="environment">
              {environmentLabels[proposal.environment] ?? proposal.environment}
            </Badge>
            {live && proposal.escalated_at && (
              <Badge tone="warning" testId="escalated">
                Escaladée
              </Badge>
            )}
          </div>
          <h1 className="text-xl leading-snug font-semibold" data-testid="effect">
            {proposal.effect}
          </h1>
          {/* On a phone the decision comes after the details: one tap reaches it. */}
          <a href="#decision-title" className="inline-block text-sm text-brand-700 underline lg:hidden">
            Aller à la décision
          </a>
        </div>

        {stale && (
          <div
            role="alert"
            className="space-y-1 rounded-lg border border-amber-300 bg-amber-50 p-4 text-sm text-amber-950"
            data-testid="stale-notice"
          >
            <p className="font-semibold">{STALE_NOTICE}.</p>
            <p>
              Une autre écriture sur {proposal.target ? `la fiche ${targetInWords(proposal.target)}` : "cette fiche"} a
              abouti après la version {proposal.target?.version ?? "lue"} sur laquelle porte cette proposition.
              L’approuver ne servirait à rien : le service refuserait l’écriture au moment de l’exécution (conflit de
              version). Refusez-la comme périmée ; l’agent relira la fiche et proposera à nouveau si le changement est
              toujours voulu.
            </p>
          </div>
        )}

        {proposal.superseded_by && (proposal.status === "revised" || proposal.status === "superseded") && (
          <p
            role="status"
            className="rounded-lg border border-slate-200 bg-slate-50 p-4 text-sm"
            data-testid="replaced-by"
          >
            {proposal.status === "revised"
              ? "Une personne a modifié les arguments de cette proposition ; la révision la remplace : "
              : "Une proposition plus récente la remplace : "}
            <Link className="font-mono text-brand-700 hover:underline" href={`/approbations/${proposal.superseded_by}`}>
              {proposal.superseded_by}
            </Link>
          </p>
        )}

        {proposal.revision && (
          <Section title="Révision">
            <p className="text-sm" data-testid="revision">
              Arguments révisés par{" "}
              <strong>{proposal.revision.revised_by.name ?? proposal.revision.revised_by.id}</strong>
              {proposal.supersedes && (
                <>
                  {" "}
                  à partir de la proposition{" "}
                  <Link
                    className="font-mono text-brand-700 hover:underline"
                    href={`/approbations/${proposal.supersedes}`}
                  >
                    {proposal.supersedes}
                  </Link>
                </>
              )}
              . Le service a prévisualisé à nouveau la modification.
            </p>
            <ChangesTable
              changes={proposal.revision.changes}
              caption="Arguments révisés : avant et après"
              heading="Argument"
            />
          </Section>
        )}

        <Section title="Demandée par">
          <dl className="grid grid-cols-[max-content_minmax(0,1fr)] gap-x-6 gap-y-1 text-sm" data-testid="requester">
            <dt className="text-slate-500">Agent</dt>
            <dd className={proposal.requester.agent ? "font-medium" : "text-slate-600 italic"}>{requester.agent}</dd>
            <dt className="text-slate-500">Exécution</dt>
            <dd>
              <code className="text-xs">{proposal.requester.run}</code>
            </dd>
            <dt className="text-slate-500">Lancée par</dt>
            <dd>{requester.via}</dd>
            {proposal.acts_as && (
              <>
                <dt className="text-slate-500">Avec le compte de</dt>
                <dd data-testid="acts-as">
                  {proposal.acts_as.email ?? proposal.acts_as.member_id}{" "}
                  <span className="text-xs text-slate-500">
                    (sa propre connexion au service : c’est elle qui validera l’écriture, quel que soit l’approbateur)
                  </span>
                </dd>
              </>
            )}
          </dl>
        </Section>

        <Section title="Ce qui va changer">
          <ChangesTable changes={proposal.changes} />
        </Section>

        {proposal.recipients && (
          <Section title={`Destinataires (${proposal.recipients.length})`}>
            <ul className="flex flex-wrap gap-2" aria-label="Destinataires">
              {proposal.recipients.map((r) => (
                <li key={r} className="rounded-md border border-slate-200 bg-white px-2 py-1 font-mono text-sm">
                  {r}
                </li>
              ))}
            </ul>
          </Section>
        )}

        {proposal.amount && (
          <Section title="Montant">
            <p className="text-2xl font-semibold tabular-nums" data-testid="amount">
              {formatMoney(proposal.amount)}
            </p>
          </Section>
        )}

        <Section title="Conséquences">
          <ul className="list-disc space-y-1 pl-5 text-sm" data-testid="consequences">
            {consequences.map((line) => (
              <li key={line} className={line.startsWith("Réversible") ? "" : "text-slate-900"}>
                {line}
              </li>
            ))}
          </ul>
        </Section>

        <Section title="Portée">
          <dl className="grid grid-cols-[max-content_minmax(0,1fr)] gap-x-6 gap-y-1 text-sm">
            <dt className="text-slate-500">Enregistrements touchés</dt>
            <dd className="tabular-nums" data-testid="records">
              {proposal.records_affected.toLocaleString("fr-FR")}
            </dd>
            <dt className="text-slate-500">Cible</dt>
            <dd>
              {proposal.target
                ? `${targetInWords(proposal.target)}${proposal.target.version !== null ? ` · version ${proposal.target.version}` : ""}`
                : "—"}
            </dd>
            <dt className="text-slate-500">Irréversible</dt>
            <dd>{proposal.irreversible ? "Oui" : "Non"}</dd>
            <dt className="text-slate-500">Empreinte des arguments</dt>
            <dd>
              <code className="text-xs break-all">{proposal.arguments_sha256}</code>
            </dd>
            <dt className="text-slate-500">Demandée le</dt>
            <dd>{dateFormat.format(new Date(proposal.created_at))}</dd>
          </dl>
        </Section>
      </div>

      <aside className="space-y-6" aria-label="Règle et décision">
        <Card as="section" className="space-y-2 text-sm" aria-labelledby="rule-title">
          <h2 id="rule-title" className="text-base font-semibold">
            Règle appliquée
          </h2>
          <p>
            <span className="font-mono">{proposal.policy.rule}</span> · politique v{proposal.policy.policy_version}
          </p>
          {proposal.policy.description && <p className="text-slate-600">{proposal.policy.description}</p>}
          <p data-testid="quorum">
            <strong>{proposal.approvals.count}</strong> approbation{proposal.approvals.count > 1 ? "s" : ""} sur{" "}
            <strong>{proposal.approvals.required}</strong> requise{proposal.approvals.required > 1 ? "s" : ""}, par des
            personnes distinctes.
          </p>
          <p className="text-slate-600">
            Peuvent décider :{" "}
            {proposal.policy.approver_roles.map((r) => roleLabels[r]).join(", ") || "personne (décision automatique)"}.
          </p>
          {proposal.decisions.length > 0 && (
            <ul className="space-y-1 border-t border-slate-100 pt-2" aria-label="Décisions">
              {proposal.decisions.map((d) => (
                <li key={`${d.member.id}-${d.created_at}`}>
                  <span className={d.decision === "approve" ? "text-emerald-700" : "text-red-700"}>
                    {d.decision === "approve" ? "Approuvée" : "Refusée"}
                  </span>{" "}
                  par {d.member.name ?? d.member.id}, {dateFormat.format(new Date(d.created_at))}
                  {d.reason ? ` — « ${d.reason} »` : ""}
                </li>
              ))}
            </ul>
          )}
          {proposal.operation && (
            <p>
              Opération :{" "}
              <Link className="font-mono text-brand-700 hover:underline" href={`/operations?id=${proposal.operation}`}>
                {proposal.operation}
              </Link>
            </p>
          )}
        </Card>
        <DecisionPanel
          proposal={proposal}
          expired={expired}
          stale={stale}
          blockedReason={blockedReason(proposal, viewer)}
        />
        {mayRevise && <RevisePanel proposal={proposal} disabled={false} />}
      </aside>
    </div>
  );
}
