"use client";

import { useMutation, useQueryClient } from "@tanstack/react-query";
import { useState } from "react";
import { toast } from "sonner";
import { Button } from "@/components/ui/button";
import { Field, TextArea } from "@/components/ui/field";
import { ApiClientError, type ApiFieldError } from "@/lib/client/errors";
import { PolicyTable } from "./policy-table";
import { PolicyVersions } from "./policy-versions";
import { policyKeys, publishPolicy, usePolicy } from "./queries";
import { ErrorText } from "@/components/ui/error-text";

const dateFormat = new Intl.DateTimeFormat("fr-FR", { dateStyle: "medium", timeStyle: "short" });

/** "rules[3].approver_roles[0]" → "Ligne 4 · approver_roles[0]". */
function whereInTable(field: string): string {
  const match = /^rules\[(\d+)\]\.?(.*)$/.exec(field);
  return match ? `Ligne ${Number(match[1]) + 1}${match[2] ? ` · ${match[2]}` : ""}` : field;
}

/** Reads the table; owners and admins edit it as JSON and publish a new version (the server validates every row). */
export function PolicyEditor({ canEdit }: { canEdit: boolean }) {
  const client = useQueryClient();
  const current = usePolicy();
  const [draft, setDraft] = useState<string | null>(null);
  const [problems, setProblems] = useState<{ message: string; errors: ApiFieldError[] } | null>(null);
  const publish = useMutation({
    mutationFn: publishPolicy,
    onSuccess: ({ data, warnings }) => {
      toast.success(`Version ${data.version} publiée.`);
      warnings.forEach((w) => toast.warning(w));
      setDraft(null);
      setProblems(null);
      client.setQueryData(policyKeys.current(), data);
      void client.invalidateQueries({ queryKey: policyKeys.versions() });
    },
    onError: (error) =>
      setProblems(
        error instanceof ApiClientError
          ? { message: error.message, errors: error.errors }
          : { message: String(error), errors: [] },
      ),
  });

  if (current.isPending) return <p className="text-sm text-slate-500">Chargement…</p>;
  if (current.isError) return <ErrorText>{current.error.message}</ErrorText>;
  const table = current.data;

  function submit() {
    if (draft === null) return;
    let rules: unknown;
    try {
      rules = JSON.parse(draft);
    } catch (error) {
      setProblems({ message: `JSON invalide : ${error instanceof Error ? error.message : String(error)}`, errors: [] });
      return;
    }
    publish.mutate({ rules, base_version: table.version });
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
            hint="Chaque ligne : id, description, match (tools, effect, environments, actions, amount_at_least, records_at_least, irreversible, external_message), decision, approvals_required, approver_roles, ttl_seconds."
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
          <div className="flex gap-2">
            <Button onClick={submit} disabled={publish.isPending}>
              Publier la version {table.version + 1}
            </Button>
            <Button
              variant="ghost"
              onClick={() => {
                setDraft(null);
                setProblems(null);
              }}
            >
              Annuler
            </Button>
          </div>
        </section>
      )}
      <PolicyVersions currentVersion={table.version} />
    </div>
  );
}
