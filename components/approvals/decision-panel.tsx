"use client";

import { useState, type FormEvent } from "react";
import { toast } from "sonner";
import { Button } from "@/components/ui/button";
import { Field, TextArea } from "@/components/ui/field";
import { ApiClientError } from "@/lib/client/errors";
import type { ProposalObject } from "@/lib/proposals/schemas";
import { decisionErrorMessage, STALE_REFUSAL_REASON } from "./format";
import { useDecide } from "./queries";
import { ErrorText } from "@/components/ui/error-text";
import { Card } from "@/components/ui/card";

/** Approve or refuse (reason required). Disabled once the countdown reaches zero: silence is never consent. */
export function DecisionPanel({
  proposal,
  expired,
  stale,
  blockedReason,
}: {
  proposal: ProposalObject;
  expired: boolean;
  stale: boolean;
  blockedReason: string | null;
}) {
  const decide = useDecide(proposal.id);
  const [reason, setReason] = useState("");
  const [shareReason, setShareReason] = useState(false);
  const [reasonError, setReasonError] = useState<string>();
  // Only a widget's visitor is told of a refusal by Guichet itself; the reason stays private unless ticked.
  const fromWidget = proposal.requester?.source === "widget";
  const [serverError, setServerError] = useState<string>();
  const disabled = expired || decide.isPending || blockedReason !== null;

  function onError(error: Error) {
    const message = error instanceof ApiClientError ? decisionErrorMessage(error.code, error.message) : error.message;
    if (error instanceof ApiClientError && error.fieldMessage("reason")) setReasonError(error.fieldMessage("reason"));
    else setServerError(message);
  }

  function approve() {
    setServerError(undefined);
    decide.mutate(
      { kind: "approve", argumentsSha256: proposal.arguments_sha256 },
      {
        onSuccess: ({ data }) =>
          toast.success(
            data.status === "approved"
              ? "Proposition approuvée."
              : `Approbation enregistrée (${data.approvals.count} sur ${data.approvals.required}).`,
          ),
        onError,
      },
    );
  }

  function refuse(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    setServerError(undefined);
    if (reason.trim() === "") {
      setReasonError("Indiquez la raison du refus : l’agent s’en servira pour revoir son plan.");
      return;
    }
    setReasonError(undefined);
    decide.mutate(
      { kind: "refuse", reason: reason.trim(), shareReason: fromWidget && shareReason },
      { onSuccess: () => toast.success("Proposition refusée."), onError },
    );
  }

  function refuseAsStale() {
    setServerError(undefined);
    decide.mutate(
      { kind: "refuse", reason: STALE_REFUSAL_REASON },
      { onSuccess: () => toast.success("Proposition refusée comme périmée."), onError },
    );
  }

  return (
    <Card as="section" className="space-y-4" aria-labelledby="decision-title">
      <h2 id="decision-title" className="text-base font-semibold">
        Votre décision
      </h2>
      {expired && (
        <p role="status" className="text-sm font-medium text-slate-700">
          Le délai est écoulé : cette proposition ne peut plus être décidée.
        </p>
      )}
      {blockedReason && !expired && (
        <p role="status" className="text-sm text-slate-700">
          {blockedReason}
        </p>
      )}
      {serverError && <ErrorText>{serverError}</ErrorText>}
      {stale && (
        <div className="space-y-1">
          <Button variant="danger" onClick={refuseAsStale} disabled={disabled}>
            Refuser comme périmée
          </Button>
          <p className="text-xs text-slate-500">
            Un clic : la raison transmise à l’agent dit que la fiche a changé depuis sa proposition.
          </p>
        </div>
      )}
      <div>
        <Button onClick={approve} disabled={disabled}>
          Approuver cette modification
        </Button>
        <p className="mt-1 text-xs text-slate-500">
          Vous approuvez l’empreinte <code>{proposal.arguments_sha256.slice(0, 12)}…</code> : rien d’autre ne pourra
          être exécuté en son nom.
        </p>
      </div>
      <form onSubmit={refuse} className="space-y-2" noValidate>
        <Field label="Raison du refus" error={reasonError} hint="Obligatoire ; elle est transmise à l’agent.">
          {({ id, describedBy, invalid }) => (
            <TextArea
              id={id}
              aria-describedby={describedBy}
              invalid={invalid}
              rows={3}
              maxLength={500}
              value={reason}
              onChange={(e) => {
                setReason(e.target.value);
                setReasonError(undefined);
              }}
              disabled={disabled}
              required
            />
          )}
        </Field>
        {fromWidget && (
          <div>
            <label className="flex items-center gap-2 text-sm">
              <input
                type="checkbox"
                checked={shareReason}
                onChange={(e) => setShareReason(e.target.checked)}
                disabled={disabled}
                aria-describedby="share-reason-hint"
              />
              Montrer le motif au visiteur
            </label>
            <p id="share-reason-hint" className="mt-1 text-xs text-slate-500">
              Sinon, le visiteur lit seulement « Votre demande n’a pas été acceptée. »
            </p>
          </div>
        )}
        <Button type="submit" variant="danger" disabled={disabled}>
          Refuser
        </Button>
      </form>
    </Card>
  );
}
