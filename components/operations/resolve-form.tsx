"use client";

import { useState, type FormEvent } from "react";
import { toast } from "sonner";
import { Button } from "@/components/ui/button";
import { Field, TextArea } from "@/components/ui/field";
import { ApiClientError } from "@/lib/client/errors";
import { useResolve } from "./queries";
import { ErrorText } from "@/components/ui/error-text";

/** An operator's verdict, after checking the service: it happened, or it did not — with what was checked. */
export function ResolveForm({ operationId }: { operationId: string }) {
  const resolve = useResolve(operationId);
  const [outcome, setOutcome] = useState<"succeeded" | "failed" | "">("");
  const [reason, setReason] = useState("");
  const [errors, setErrors] = useState<{ outcome?: string; reason?: string; form?: string }>({});

  function submit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    const next: typeof errors = {};
    if (!outcome) next.outcome = "Dites ce que vous avez constaté dans le service.";
    if (!reason.trim()) next.reason = "Indiquez ce que vous avez vérifié (écran, référence, personne contactée).";
    setErrors(next);
    if (next.outcome || next.reason || !outcome) return;
    resolve.mutate(
      { outcome, reason: reason.trim() },
      {
        onSuccess: () =>
          toast.success(
            outcome === "succeeded"
              ? "Résolue : l’écriture a eu lieu, la proposition est consommée."
              : "Résolue : l’écriture n’a pas eu lieu.",
          ),
        onError: (error) => setErrors({ form: error instanceof ApiClientError ? error.message : String(error) }),
      },
    );
  }

  return (
    <form onSubmit={submit} className="space-y-3" noValidate aria-label={`Résoudre ${operationId}`}>
      <fieldset className="space-y-1">
        <legend className="text-sm font-medium text-slate-800">Constat dans le service</legend>
        <label className="flex items-center gap-2 text-sm">
          <input
            type="radio"
            name={`outcome-${operationId}`}
            value="succeeded"
            checked={outcome === "succeeded"}
            onChange={() => setOutcome("succeeded")}
          />{" "}
          L’écriture a bien eu lieu
        </label>
        <label className="flex items-center gap-2 text-sm">
          <input
            type="radio"
            name={`outcome-${operationId}`}
            value="failed"
            checked={outcome === "failed"}
            onChange={() => setOutcome("failed")}
          />{" "}
          L’écriture n’a pas eu lieu
        </label>
        {errors.outcome && <ErrorText small>{errors.outcome}</ErrorText>}
      </fieldset>
      <Field label="Ce que vous avez vérifié" error={errors.reason}>
        {({ id, describedBy, invalid }) => (
          <TextArea
            id={id}
            aria-describedby={describedBy}
            invalid={invalid}
            rows={2}
            maxLength={1000}
            value={reason}
            onChange={(e) => setReason(e.target.value)}
          />
        )}
      </Field>
      {errors.form && <ErrorText>{errors.form}</ErrorText>}
      <Button type="submit" disabled={resolve.isPending}>
        Résoudre
      </Button>
    </form>
  );
}
