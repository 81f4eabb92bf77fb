"use client";

import { useState, type FormEvent } from "react";
import { Button } from "@/components/ui/button";
import { ErrorText } from "@/components/ui/error-text";
import { Field, TextArea } from "@/components/ui/field";
import type { Role } from "@/lib/auth/scopes";
import { reasonFr } from "@/lib/catalog/reasons";
import { connectHref } from "@/components/connections/queries";
import { TryProposalCard } from "./try-proposal";
import { isLive, type RunWarning, type TryItem, type TryState } from "./try-state";
import { keepConversation } from "./try-storage";
import { useTryRun } from "./use-try-run";

// "Essayer": the conversation with the agent being edited, on a managed run
// (./use-try-run.ts drives it). Everything shown is text: tool output never
// becomes HTML.

const statusWords: Record<string, string> = {
  streaming: "Le run s’exécute…",
  resuming: "Reprise du run…",
  requires_action: "Le run attend la sortie d’un outil client.",
  requires_approval: "En attente d’approbation : le run reprendra de lui-même après la décision.",
  completed: "Run terminé.",
  failed: "Run en échec.",
  stopped: "Le run s’est arrêté (annulé ou expiré).",
};

export function TryPanel({ agentId, viewer }: { agentId: string; viewer: { id: string; role: Role } }) {
  const { state, error, setError, send, submitOutputs, reset } = useTryRun(agentId);
  const [draft, setDraft] = useState("");

  function onSubmit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    const text = draft.trim();
    if (!text) return setError("Écrivez un message pour l’agent.");
    setDraft("");
    send(text);
  }

  const busy = isLive(state.status) || state.status === "requires_action";
  return (
    <div className="space-y-3" data-testid="try-panel">
      {/* role=log on a wrapper: an <ol> keeps its list semantics, so its <li> stay list items. */}
      <div role="log" aria-live="polite" aria-label="Conversation">
        <ol className="space-y-2">
          {state.items.map((item, index) => (
            <li key={index}>
              <ItemView item={item} viewer={viewer} />
            </li>
          ))}
        </ol>
      </div>
      {state.status !== "idle" && (
        <p role="status" className="text-xs text-slate-600" data-testid="try-status">
          {statusWords[state.status]}
          {state.runId && (
            <>
              {" "}
              <code>{state.runId}</code>
            </>
          )}
        </p>
      )}
      {state.warnings.length > 0 && <LeftOutTools agentId={agentId} state={state} />}
      {error && <ErrorText>{error}</ErrorText>}
      {state.status === "requires_action" && (
        <ClientToolForm key={state.lastEventId} pending={state.pending} onSubmit={submitOutputs} />
      )}
      <form onSubmit={onSubmit} className="space-y-2" noValidate>
        <Field
          label="Votre message"
          hint="Le run utilise le modèle, les instructions et les outils enregistrés de l’agent."
        >
          {({ id, describedBy }) => (
            <TextArea
              id={id}
              aria-describedby={describedBy}
              rows={3}
              maxLength={10_000}
              value={draft}
              onChange={(e) => setDraft(e.target.value)}
              disabled={busy}
            />
          )}
        </Field>
        <div className="flex gap-2">
          <Button type="submit" disabled={busy}>
            Envoyer
          </Button>
          <Button type="button" variant="ghost" onClick={reset}>
            Nouvelle conversation
          </Button>
        </div>
      </form>
    </div>
  );
}

/**
 * The tools the run left out, and why. One the member has not connected (a connector that acts as each
 * member) has « Connecter »: the sign-in at the connector, then back to this conversation.
 */
function LeftOutTools({ agentId, state }: { agentId: string; state: TryState }) {
  // The tools of one connector to connect go on one line, with one « Connecter ».
  const lines = new Map<string, RunWarning[]>();
  for (const warning of state.warnings) {
    const key = warning.reason.connect_url ?? `${warning.tool}:${warning.reason.code}`;
    lines.set(key, [...(lines.get(key) ?? []), warning]);
  }
  return (
    <section
      aria-label="Outils laissés de côté"
      className="space-y-1 rounded-md border border-amber-200 bg-amber-50 p-2 text-xs text-amber-900"
    >
      <p className="font-medium">Le run a laissé de côté :</p>
      <ul className="space-y-1">
        {[...lines.values()].map((warnings) => {
          const [first] = warnings;
          const connectUrl = first.reason.connect_url;
          return (
            <li key={`${first.tool}:${first.reason.code}`} className="flex flex-wrap items-center gap-2">
              <span>
                {warnings.map((warning, index) => (
                  <span key={warning.tool}>
                    {index > 0 && ", "}
                    <code>{warning.tool}</code>
                  </span>
                ))}{" "}
                — {reasonFr(first.reason)}
              </span>
              {connectUrl && (
                <a
                  href={connectHref(connectUrl, `/agents?agent=${encodeURIComponent(agentId)}`)}
                  onClick={() => keepConversation(agentId, state)}
                  className="rounded-md bg-brand-600 px-2 py-1 font-medium text-white hover:bg-brand-700"
                >
                  Connecter
                </a>
              )}
            </li>
          );
        })}
      </ul>
    </section>
  );
}

const toolStatusWords = { running: "en cours", ok: "réussi", error: "refusé" } as const;

function ItemView({ item, viewer }: { item: TryItem; viewer: { id: string; role: Role } }) {
  if (item.kind === "user" || item.kind === "assistant")
    return (
      <div className={item.kind === "user" ? "rounded-md bg-slate-100 p-2" : "rounded-md border border-slate-200 p-2"}>
        <p className="text-xs font-medium text-slate-500">{item.kind === "user" ? "Vous" : "Agent"}</p>
        <p className="text-sm whitespace-pre-wrap" data-testid={item.kind === "assistant" ? "try-answer" : undefined}>
          {item.text}
        </p>
      </div>
    );
  if (item.kind === "failure")
    return (
      <ErrorText>
        Échec ({item.code}) : {item.message}
      </ErrorText>
    );
  return (
    <div className="space-y-2">
      <p className="font-mono text-xs text-slate-700" data-testid="try-step">
        {item.client ? "Outil client" : "Outil"} <strong>{item.tool}</strong> — {toolStatusWords[item.status]}
        {item.errorCode && ` (${item.errorCode})`}
        {item.durationMs !== null && ` — ${item.durationMs} ms`}
      </p>
      {item.proposal && <TryProposalCard id={item.proposal} viewer={viewer} />}
    </div>
  );
}

function ClientToolForm({
  pending,
  onSubmit,
}: {
  pending: Array<{ id: string; name: string; arguments: unknown }>;
  onSubmit: (outputs: Record<string, string>) => void;
}) {
  const [outputs, setOutputs] = useState<Record<string, string>>({});
  return (
    <form
      className="border-brand-200 space-y-3 rounded-md border bg-brand-50 p-3"
      onSubmit={(event) => {
        event.preventDefault();
        onSubmit(outputs);
      }}
    >
      <p className="text-sm font-medium">Le modèle appelle un outil client : saisissez sa sortie.</p>
      {pending.map((call) => (
        <div key={call.id} className="space-y-1">
          <p className="text-xs text-slate-600">
            <strong>{call.name}</strong> avec les arguments :
          </p>
          <pre className="overflow-x-auto rounded bg-white p-2 text-xs">{JSON.stringify(call.arguments, null, 2)}</pre>
          <Field label={`Sortie de ${call.name}`}>
            {({ id }) => (
              <TextArea
                id={id}
                rows={2}
                maxLength={100_000}
                value={outputs[call.id] ?? ""}
                onChange={(e) => setOutputs((o) => ({ ...o, [call.id]: e.target.value }))}
              />
            )}
          </Field>
        </div>
      ))}
      <Button type="submit">Envoyer la sortie</Button>
    </form>
  );
}
