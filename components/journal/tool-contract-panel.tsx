"use client";

import { useState } from "react";
import { Badge } from "@/components/ui/badge";
import { useContract } from "@/components/catalog/queries";
import { ApiClientError } from "@/lib/client/errors";
import type { ContractObject } from "@/lib/contracts/schemas";

// A tool's contract for the tool detail of "Outils": version history, effect,
// retry class, limits, result view and both schemas, from
// GET /v1/tools/{key}/contract. Made to be embedded in the catalog's detail.

const retryWords: Record<ContractObject["retry"], string> = {
  safe: "relue sans risque en cas d’échec passager",
  idempotent: "écriture protégée par une clé d’idempotence et un outil d’état",
  never: "jamais répétée",
};
const cancellationWords: Record<ContractObject["cancellation"], string> = {
  abort: "interrompue avec le run",
  not_interruptible: "non interruptible une fois envoyée : Guichet attend et enregistre la réponse du service",
  cancel_tool: "travail long : son annulation demande au service de l’arrêter, par son outil d’annulation",
};

export function ToolContractPanel({ toolKey }: { toolKey: string }) {
  const [version, setVersion] = useState<number | undefined>();
  const contract = useContract(toolKey, version ?? null);
  if (contract.isPending) return <p className="text-sm text-slate-500">Chargement du contrat…</p>;
  if (contract.isError)
    return (
      <p className="text-sm text-slate-600">
        {contract.error instanceof ApiClientError && contract.error.status === 404
          ? "Aucun contrat publié : l’outil doit d’abord être revu."
          : contract.error.message}
      </p>
    );
  const c = contract.data;
  return (
    <section aria-labelledby={`contract-${toolKey}`} className="space-y-3 text-sm" data-testid="tool-contract">
      <div className="flex flex-wrap items-center gap-2">
        <h3 id={`contract-${toolKey}`} className="font-semibold">
          Contrat <code>{`${c.key}@${c.version}`}</code>
        </h3>
        <Badge tone={c.effect === "write" ? "warning" : "neutral"}>
          {c.effect === "write" ? "Écriture" : "Lecture"}
        </Badge>
        {c.retired && <Badge tone="danger">Retiré</Badge>}
        {c.versions.length > 1 && (
          <label className="ml-auto flex items-center gap-1 text-xs">
            Version
            <select
              className="rounded border border-slate-300 px-1 py-0.5"
              value={version ?? c.version}
              onChange={(e) => setVersion(Number(e.target.value))}
            >
              {c.versions.map((v) => (
                <option key={v.version} value={v.version}>
                  {v.version}
                </option>
              ))}
            </select>
          </label>
        )}
      </div>
      <dl className="grid grid-cols-[12rem_minmax(0,1fr)] gap-x-3 gap-y-1">
        <dt className="text-slate-500">Reprise</dt>
        <dd>
          <code>{c.retry}</code> — {retryWords[c.retry]}
        </dd>
        <dt className="text-slate-500">Délai</dt>
        <dd>{c.timeout_ms / 1000} s</dd>
        <dt className="text-slate-500">Arguments</dt>
        <dd>{c.max_argument_bytes.toLocaleString("fr-FR")} octets au plus</dd>
        <dt className="text-slate-500">Annulation</dt>
        <dd>{cancellationWords[c.cancellation]}</dd>
        {c.idempotency && (
          <>
            <dt className="text-slate-500">Idempotence</dt>
            <dd>
              champ <code>{c.idempotency.key_field}</code> (généré par Guichet)
            </dd>
          </>
        )}
        {c.preview && (
          <>
            <dt className="text-slate-500">Aperçu</dt>
            <dd>
              <code>{c.preview}</code>
            </dd>
          </>
        )}
        {c.status_tool && (
          <>
            <dt className="text-slate-500">Outil d’état</dt>
            <dd>
              <code>{c.status_tool}</code>
            </dd>
          </>
        )}
        {c.target && (
          <>
            <dt className="text-slate-500">Cible</dt>
            <dd>
              {c.target.type} — <code>{c.target.id_pointer}</code>
              {c.target.version_pointer && (
                <>
                  {" "}
                  version <code>{c.target.version_pointer}</code>
                </>
              )}
            </dd>
          </>
        )}
        <dt className="text-slate-500">Vue de résultat</dt>
        <dd className="flex flex-wrap gap-1">
          {c.result_view.map((p) => (
            <code key={p} className="rounded bg-slate-100 px-1 text-xs">
              {p || "/"}
            </code>
          ))}
        </dd>
      </dl>
      <details>
        <summary className="cursor-pointer text-slate-700">Schéma d’entrée</summary>
        <pre className="mt-1 max-h-72 overflow-auto rounded bg-slate-50 p-2 text-xs">
          {JSON.stringify(c.input_schema, null, 2)}
        </pre>
      </details>
      <details>
        <summary className="cursor-pointer text-slate-700">Schéma de sortie</summary>
        <pre className="mt-1 max-h-72 overflow-auto rounded bg-slate-50 p-2 text-xs">
          {JSON.stringify(c.output_schema, null, 2)}
        </pre>
      </details>
    </section>
  );
}
