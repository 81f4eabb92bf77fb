"use client";

import Link from "next/link";
import { toast } from "sonner";
import { Badge } from "@/components/ui/badge";
import { Button } from "@/components/ui/button";
import { EmptyState } from "@/components/ui/empty-state";
import { Table, Td, Th } from "@/components/ui/table";
import type { OperationObject } from "@/lib/operations/schemas";
import { useCancel, useRecentOperations, useUnknownOperations } from "./queries";
import { ResolveForm } from "./resolve-form";
import { ErrorText } from "@/components/ui/error-text";

const dateFormat = new Intl.DateTimeFormat("fr-FR", { dateStyle: "short", timeStyle: "medium" });

export const operationStatusLabels: Record<OperationObject["status"], string> = {
  queued: "En file",
  running: "En cours",
  accepted: "Acceptée, travail en cours",
  succeeded: "Réussie",
  failed: "Échouée",
  cancelled: "Annulée",
  unknown: "Issue inconnue",
};
const tones = {
  queued: "neutral",
  running: "info",
  accepted: "info",
  succeeded: "success",
  failed: "danger",
  cancelled: "neutral",
  unknown: "warning",
} as const;
const cancelOutcomes = {
  stopped: "Arrêtée : rien n’avait été envoyé, ou le service a arrêté le travail.",
  already_finished: "Déjà terminée : rien à arrêter.",
  not_interruptible:
    "Impossible à interrompre : la demande est déjà chez le service. Une compensation serait une nouvelle écriture, avec sa propre approbation.",
};

function Evidence({ operation }: { operation: OperationObject }) {
  return (
    <dl className="grid grid-cols-[max-content_minmax(0,1fr)] gap-x-4 gap-y-1 text-sm">
      <dt className="text-slate-500">Outil</dt>
      <dd className="font-mono text-xs">{operation.tool}</dd>
      <dt className="text-slate-500">Clé d’idempotence</dt>
      <dd className="font-mono text-xs break-all">{operation.idempotency_key}</dd>
      <dt className="text-slate-500">Proposition</dt>
      <dd>
        {operation.proposal ? (
          <Link
            href={`/approbations/${operation.proposal}`}
            className="font-mono text-xs text-brand-700 hover:underline"
          >
            {operation.proposal}
          </Link>
        ) : (
          "—"
        )}
      </dd>
      <dt className="text-slate-500">Run</dt>
      <dd className="font-mono text-xs">{operation.run}</dd>
    </dl>
  );
}

/** Unknown outcomes waiting for an operator, with what Guichet saw at each step, then recent operations. */
export function OperationsPanel({ canResolve }: { canResolve: boolean }) {
  const unknown = useUnknownOperations();
  const recent = useRecentOperations();
  const cancel = useCancel();
  return (
    <div className="space-y-10">
      <section aria-labelledby="unknown-title" className="space-y-3">
        <h2 id="unknown-title" className="text-lg font-semibold">
          Issues inconnues à vérifier
        </h2>
        {unknown.isPending ? (
          <p className="text-sm text-slate-500">Chargement…</p>
        ) : unknown.isError ? (
          <ErrorText>{unknown.error.message}</ErrorText>
        ) : unknown.data.length === 0 ? (
          <EmptyState title="Aucune issue inconnue">
            Quand un service ne peut pas confirmer une écriture, le run est suspendu et l’opération apparaît ici.
          </EmptyState>
        ) : (
          <ul className="space-y-4" data-testid="unknown-operations">
            {unknown.data.map((op) => (
              <li
                key={op.id}
                className="grid gap-6 rounded-lg border border-amber-200 bg-white p-5 lg:grid-cols-[minmax(0,1fr)_20rem]"
              >
                <div className="space-y-3">
                  <div className="flex items-center gap-3">
                    <Badge tone="warning">Issue inconnue</Badge>
                    <span className="font-mono text-sm">{op.id}</span>
                    <span className="text-sm text-slate-500">{dateFormat.format(new Date(op.created_at))}</span>
                  </div>
                  <p className="text-sm">{op.error?.message}</p>
                  <Evidence operation={op} />
                  {op.error?.trail && (
                    <ol className="list-decimal space-y-1 pl-5 text-sm" aria-label="Ce que Guichet a constaté">
                      {op.error.trail.map((step) => (
                        <li key={`${step.at}-${step.step}`}>
                          <span className="font-medium">{step.step === "commit" ? "Écriture" : "Demande d’état"}</span>{" "}
                          ({dateFormat.format(new Date(step.at))}) : {step.outcome}
                        </li>
                      ))}
                    </ol>
                  )}
                </div>
                {canResolve ? (
                  <ResolveForm operationId={op.id} />
                ) : (
                  <p className="text-sm text-slate-600">
                    Un administrateur doit vérifier le service et résoudre cette opération.
                  </p>
                )}
              </li>
            ))}
          </ul>
        )}
      </section>
      <section aria-labelledby="recent-ops-title" className="space-y-3">
        <h2 id="recent-ops-title" className="text-lg font-semibold">
          Opérations récentes
        </h2>
        {recent.data && recent.data.length > 0 ? (
          <Table caption="Opérations récentes">
            <thead>
              <tr>
                <Th>Opération</Th>
                <Th>Outil</Th>
                <Th>État</Th>
                <Th>Preuve</Th>
                <Th>Créée</Th>
                <Th>
                  <span className="sr-only">Actions</span>
                </Th>
              </tr>
            </thead>
            <tbody className="divide-y divide-slate-100">
              {recent.data.map((op) => (
                <tr key={op.id}>
                  <Td className="font-mono text-xs">{op.id}</Td>
                  <Td className="font-mono text-xs">{op.tool}</Td>
                  <Td>
                    <Badge tone={tones[op.status]}>{operationStatusLabels[op.status]}</Badge>
                  </Td>
                  <Td className="max-w-xs text-xs text-slate-600">
                    {op.result
                      ? Object.entries(op.result)
                          .filter(([k]) =>
                            [
                              "previous_version",
                              "new_version",
                              "changed_fields",
                              "committed_at",
                              "message_id",
                              "refund_id",
                              "suspended_count",
                            ].includes(k),
                          )
                          .map(([k, v]) => `${k}: ${Array.isArray(v) ? v.join(", ") : String(v)}`)
                          .join(" · ")
                      : op.error
                        ? `${op.error.code}${op.resolution ? ` — résolue : ${op.resolution.reason}` : ""}`
                        : "—"}
                  </Td>
                  <Td className="whitespace-nowrap text-slate-600">{dateFormat.format(new Date(op.created_at))}</Td>
                  <Td>
                    {(op.status === "queued" || op.status === "running") && (
                      <Button
                        variant="ghost"
                        className="px-2 py-1 text-xs"
                        onClick={() =>
                          cancel.mutate(op.id, {
                            onSuccess: (r) => toast.info(cancelOutcomes[r.outcome]),
                            onError: (e) => toast.error(e.message),
                          })
                        }
                      >
                        Annuler
                      </Button>
                    )}
                  </Td>
                </tr>
              ))}
            </tbody>
          </Table>
        ) : (
          <p className="text-sm text-slate-500">
            {recent.isPending ? "Chargement…" : "Aucune opération pour l’instant."}
          </p>
        )}
      </section>
    </div>
  );
}
