"use client";

import { useState } from "react";
import { Button } from "@/components/ui/button";
import { ErrorText } from "@/components/ui/error-text";
import { Field, TextArea } from "@/components/ui/field";
import type { BatchDecisionResult, ProposalObject } from "@/lib/proposals/schemas";
import { decisionErrorMessage } from "./format";
import { useDecideMany } from "./queries";

/**
 * The inbox's selection: approve or refuse every selected proposal in one
 * action (one reason for all refusals). Each is still checked on its own — its
 * hash as shown here, its rule, its expiry, your rights — and answered on its
 * own line below.
 */
export function BatchBar({ selected, onDone }: { selected: ProposalObject[]; onDone: () => void }) {
  const decide = useDecideMany();
  const [reason, setReason] = useState("");
  const [reasonError, setReasonError] = useState<string>();
  const [results, setResults] = useState<{ effect: string; result: BatchDecisionResult }[]>([]);

  function run(kind: "approve" | "refuse") {
    if (kind === "refuse" && reason.trim() === "") {
      setReasonError("Indiquez la raison du refus : elle est transmise à chaque agent.");
      return;
    }
    setReasonError(undefined);
    const effects = new Map(selected.map((p) => [p.id, p.effect]));
    decide.mutate(
      {
        decisions: selected.map((p) =>
          kind === "approve"
            ? { proposal: p.id, decision: "approve" as const, arguments_sha256: p.arguments_sha256 }
            : { proposal: p.id, decision: "refuse" as const },
        ),
        ...(kind === "refuse" ? { reason: reason.trim() } : {}),
      },
      {
        onSuccess: (lines) => {
          setResults(lines.map((result) => ({ effect: effects.get(result.proposal) ?? result.proposal, result })));
          onDone();
        },
      },
    );
  }

  return (
    <div className="space-y-3">
      {selected.length > 0 && (
        <section
          aria-label="Décider la sélection"
          className="border-brand-200 space-y-3 rounded-lg border bg-brand-50 p-4 text-sm"
        >
          <p className="font-medium" data-testid="selection-count">
            {selected.length} proposition{selected.length > 1 ? "s" : ""} sélectionnée{selected.length > 1 ? "s" : ""}
          </p>
          <div className="flex flex-wrap gap-2">
            <Button onClick={() => run("approve")} disabled={decide.isPending}>
              Approuver la sélection
            </Button>
          </div>
          <Field label="Raison du refus (pour toute la sélection)" error={reasonError}>
            {({ id, describedBy, invalid }) => (
              <TextArea
                id={id}
                aria-describedby={describedBy}
                invalid={invalid}
                rows={2}
                maxLength={500}
                value={reason}
                onChange={(e) => setReason(e.target.value)}
              />
            )}
          </Field>
          <Button variant="danger" onClick={() => run("refuse")} disabled={decide.isPending}>
            Refuser la sélection
          </Button>
          {decide.isError && <ErrorText>{decide.error.message}</ErrorText>}
        </section>
      )}
      {results.length > 0 && (
        <ul aria-label="Résultat des décisions" className="space-y-1 text-sm">
          {results.map(({ effect, result }) => (
            <li key={result.proposal} className={result.ok ? "text-emerald-800" : "text-red-800"}>
              {result.ok
                ? `${result.data.status === "refused" ? "Refusée" : result.data.status === "approved" ? "Approuvée" : "Approbation enregistrée"} : ${effect}`
                : `Non décidée : ${effect} — ${decisionErrorMessage(result.error.code, result.error.message)}`}
            </li>
          ))}
        </ul>
      )}
    </div>
  );
}
