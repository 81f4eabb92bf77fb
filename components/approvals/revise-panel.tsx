"use client";

import { useRouter } from "next/navigation";
import { useState } from "react";
import { toast } from "sonner";
import { Button } from "@/components/ui/button";
import { ErrorText } from "@/components/ui/error-text";
import { ApiClientError } from "@/lib/client/errors";
import { argumentChanges } from "@/lib/proposals/revision-diff";
import type { ProposalObject } from "@/lib/proposals/schemas";
import { ChangesTable } from "./changes-table";
import { useRevise, useRevisionForm } from "./queries";
import { ObjectFields, schemaErrors, type JsonSchema } from "./schema-form";
import { Card } from "@/components/ui/card";

/**
 * « Modifier avant d'approuver »: a form generated from the tool's input
 * schema, prefilled with the proposal's arguments; « Voir les changements »
 * shows the new diff, « Envoyer la révision » asks the service to preview it
 * again. The answer is a new proposal, opened at once; someone else approves it.
 */
export function RevisePanel({ proposal, disabled }: { proposal: ProposalObject; disabled: boolean }) {
  const router = useRouter();
  const [open, setOpen] = useState(false);
  const form = useRevisionForm(proposal.id, open);
  const revise = useRevise(proposal.id);
  const [edited, setEdited] = useState<Record<string, unknown> | null>(null);
  const [reviewing, setReviewing] = useState(false);
  const [serverError, setServerError] = useState<string>();
  if (!open)
    return (
      <Button variant="secondary" onClick={() => setOpen(true)} disabled={disabled}>
        Modifier avant d’approuver
      </Button>
    );
  if (form.isPending) return <p className="text-sm text-slate-500">Chargement du formulaire…</p>;
  if (form.isError) return <ErrorText>{form.error.message}</ErrorText>;
  const schema = form.data.input_schema as JsonSchema;
  const value = edited ?? form.data.arguments;
  const errors = reviewing ? schemaErrors(schema, value) : {};
  const changes = argumentChanges(form.data.arguments, value);

  function send() {
    setServerError(undefined);
    revise.mutate(value, {
      onSuccess: ({ data }) => {
        toast.success("Révision envoyée : une autre personne doit l’approuver.");
        router.push(`/approbations/${data.id}`);
      },
      onError: (error) =>
        setServerError(error instanceof ApiClientError ? `${error.message} (${error.code})` : error.message),
    });
  }

  return (
    <Card as="section" className="space-y-4" aria-labelledby="revise-title">
      <h2 id="revise-title" className="text-base font-semibold">
        Modifier avant d’approuver
      </h2>
      <p className="text-sm text-slate-600">
        Les arguments de <span className="font-mono">{form.data.tool}</span>. Le service prévisualisera à nouveau la
        modification : une nouvelle proposition remplacera celle-ci, sous sa propre règle.
      </p>
      <form
        aria-label="Arguments révisés"
        className="space-y-3"
        noValidate
        onSubmit={(event) => {
          event.preventDefault();
          setReviewing(true);
        }}
      >
        <ObjectFields
          schema={schema}
          value={value}
          name="arguments"
          pointer=""
          errors={errors}
          onChange={(next) => {
            setEdited(next as Record<string, unknown>);
            setReviewing(false);
          }}
        />
        {!reviewing && (
          <Button type="submit" variant="secondary">
            Voir les changements
          </Button>
        )}
      </form>
      {reviewing && Object.keys(errors).length > 0 && (
        <ErrorText>Corrigez les champs signalés avant d’envoyer la révision.</ErrorText>
      )}
      {reviewing && Object.keys(errors).length === 0 && (
        <div className="space-y-3">
          {changes.length === 0 ? (
            <p className="text-sm text-slate-600">Aucun argument n’a changé.</p>
          ) : (
            <ChangesTable changes={changes} caption="Arguments modifiés : avant et après" heading="Argument" />
          )}
          {serverError && <ErrorText>{serverError}</ErrorText>}
          <div className="flex flex-wrap gap-2">
            <Button onClick={send} disabled={changes.length === 0 || revise.isPending}>
              Envoyer la révision
            </Button>
            <Button variant="ghost" onClick={() => setReviewing(false)}>
              Continuer la modification
            </Button>
          </div>
        </div>
      )}
    </Card>
  );
}
