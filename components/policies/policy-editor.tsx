"use client";

import { useMutation, useQueryClient } from "@tanstack/react-query";
import { useState } from "react";
import { toast } from "sonner";
import { Button } from "@/components/ui/button";
import { Field, TextArea } from "@/components/ui/field";
import { ApiClientError, type ApiFieldError } from "@/lib/client/errors";
import { PolicyTable } from "./policy-table";
import { PolicyVersions } from "./policy-versions";
import { policyKeys, publishPolicy, publishShadow, simulatePolicy, usePolicy } from "./queries";
import { ShadowPanel } from "./shadow-panel";
import { SimulationResult } from "./simulation-result";
import { ErrorText } from "@/components/ui/error-text";

const dateFormat = new Intl.DateTimeFormat("fr-FR", { dateStyle: "medium", timeStyle: "short" });

/** "rules[3].approver_roles[0]" → "Ligne 4 · approver_roles[0]". */
function whereInTable(field: string): string {
  const match = /^rules\[(\d+)\]\.?(.*)$/.exec(field);
  return match ? `Ligne ${Number(match[1]) + 1}${match[2] ? ` · ${match[2]}` : ""}` : field;
}

/** How far back a simulation looks, in days. */
const windows = [
  { days: 1, label: "dernières 24 heures" },
  { days: 7, label: "7 derniers jours" },
  { days: 30, label: "30 derniers jours" },
] as const;

/**
 * Reads the table; owners and admins edit it as JSON, simulate the draft on the recorded decisions,
 * publish it in shadow mode or as a new version (the server validates every row).
 */
export function PolicyEditor({ canEdit }: { canEdit: boolean }) {
  const client = useQueryClient();
  const current = usePolicy();
  const [draft, setDraft] = useState<string | null>(null);
  const [problems, setProblems] = useState<{ message: string; errors: ApiFieldError[] } | null>(null);
  const [windowDays, setWindowDays] = useState<number>(7);
  const showProblems = (error: Error) =>
    setProblems(
      error instanceof ApiClientError
        ? { message: error.message, errors: error.errors }
        : { message: String(error), errors: [] },
    );
  const simulation = useMutation({
    mutationFn: simulatePolicy,
    onSuccess: () => setProblems(null),
    onError: showProblems,
  });
  const shadow = useMutation({
    mutationFn: publishShadow,
    onSuccess: ({ warnings }) => {
      toast.success("Table publiée en mode fantôme : elle est évaluée sans rien décider.");
      warnings.forEach((w) => toast.warning(w));
      close();
      void client.invalidateQueries({ queryKey: policyKeys.shadow() });
    },
    onError: showProblems,
  });
  const publish = useMutation({
    mutationFn: publishPolicy,
    onSuccess: ({ data, warnings }) => {
      toast.success(`Version ${data.version} publiée.`);
      warnings.forEach((w) => toast.warning(w));
      close();
      client.setQueryData(policyKeys.current(), data);
      void client.invalidateQueries({ queryKey: policyKeys.versions() });
    },
    onError: showProblems,
  });

  function close() {
    setDraft(null);
    setProblems(null);
    simulation.reset();
  }

  if (current.isPending) return <p className="text-sm text-slate-500">Chargement…</p>;
  if (current.isError) return <ErrorText>{current.error.message}</ErrorText>;
  const table = current.data;

  /** The typed rows, or null (and the problem shown) when they are not JSON. */
  function parsed(): { rules: unknown } | null {
    if (draft === null) return null;
    try {
      return { rules: JSON.parse(draft) };
    } catch (error) {
      setProblems({ message: `JSON invalide : ${error instanceof Error ? error.message : String(error)}`, errors: [] });
      return null;
    }
  }

  function submit() {
    const body = parsed();
    if (body) publish.mutate({ ...body, base_version: table.version });
  }

  function simulate() {
    const body = parsed();
    if (body) simulation.mutate({ ...body, since: new Date(Date.now() - windowDays * 86_400_000).toISOString() });
  }

  function shadowPublish() {
    const body = parsed();
    if (body) shadow.mutate(body);
  }

  return (
    <div className="space-y-8">
      <div className="flex flex-wrap items-center justify-between gap-3">
        <p className="text-sm text-slate-600">
          Version <strong data-testid="policy-version">{table.version}</strong>, publiée le{" "}
          {dateFormat.format(new Date(table.created_at))}. La première ligne dont toutes les conditions tiennent décide
          ; sans ligne applicable, une écriture attend une approbation.
        </p>
        {canEdit && draft === null && (
          <Button variant="secondary" onClick={() => setDraft(JSON.stringify(table.rules, null, 2))}>
            Modifier
          </Button>
        )}
      </div>
      {draft === null ? (
        <PolicyTable rules={table.rules} caption={`Table de politique, version ${table.version}`} />
      ) : (
        <section aria-labelledby="edit-title" className="space-y-3">
          <h2 id="edit-title" className="text-lg font-semibold">
            Nouvelle version (à partir de la version {table.version})
          </h2>
          <Field
            label="Lignes de la table (JSON, dans l’ordre)"
            hint="Chaque ligne : id, description, match (tools, effect, environments, actions, amount_at_least, records_at_least, irreversible, external_message), decision, approvals_required, approver_roles, ttl_seconds, et pour une escalade escalate_after_seconds et escalate_to_roles."
          >
            {({ id, describedBy }) => (
              <TextArea
                id={id}
                aria-describedby={describedBy}
                rows={24}
                spellCheck={false}
                className="font-mono text-xs"
                value={draft}
                onChange={(e) => setDraft(e.target.value)}
              />
            )}
          </Field>
          {problems && (
            <div
              role="alert"
              data-testid="policy-problems"
              className="rounded-md border border-red-200 bg-red-50 px-4 py-3 text-sm text-red-800"
            >
              <p className="font-medium">{problems.message}</p>
              {problems.errors.length > 0 && (
                <ul className="mt-1 list-disc pl-5">
                  {problems.errors.map((e) => (
                    <li key={`${e.field}-${e.code}`}>
                      <span className="font-mono text-xs">{whereInTable(e.field)}</span> : {e.message}
                    </li>
                  ))}
                </ul>
              )}
            </div>
          )}
          <div className="flex flex-wrap items-end gap-2">
            <label className="space-y-1 text-sm">
              <span className="block font-medium">Simuler sur les décisions des</span>
              <select
                className="rounded-md border border-slate-300 bg-white px-2 py-1.5 text-sm"
                value={windowDays}
                onChange={(e) => setWindowDays(Number(e.target.value))}
              >
                {windows.map((w) => (
                  <option key={w.days} value={w.days}>
                    {w.label}
                  </option>
                ))}
              </select>
            </label>
            <Button variant="secondary" onClick={simulate} disabled={simulation.isPending}>
              Simuler
            </Button>
            <Button onClick={submit} disabled={publish.isPending}>
              Publier la version {table.version + 1}
            </Button>
            <Button variant="secondary" onClick={shadowPublish} disabled={shadow.isPending}>
              Publier en mode fantôme
            </Button>
            <Button variant="ghost" onClick={close}>
              Annuler
            </Button>
          </div>
          {simulation.data && <SimulationResult result={simulation.data.data} />}
        </section>
      )}
      <ShadowPanel canEdit={canEdit} liveVersion={table.version} />
      <PolicyVersions currentVersion={table.version} />
    </div>
  );
}
