"use client";

import { useEffect, useReducer, useRef, useState, type FormEvent } from "react";
import { Button } from "@/components/ui/button";
import { Field, TextArea } from "@/components/ui/field";
import type { Role } from "@/lib/auth/scopes";
import { call } from "@/lib/client/call";
import { ApiClientError } from "@/lib/client/errors";
import { streamEvents, type StreamedEvent } from "@/lib/client/stream";
import type { RunEvent } from "@/lib/runs/event-schemas";
import { createRunEndpoint, createToolOutputsEndpoint, getRunEndpoint, listRunEventsEndpoint } from "@/lib/runs/api";
import { TryProposalCard } from "./try-proposal";
import { conversationOf, initialTryState, isLive, tryReducer, type TryAction, type TryItem } from "./try-state";
import { ErrorText } from "@/components/ui/error-text";

// "Essayer": a managed, streamed run of the agent being edited. The panel
// starts it with POST /v1/runs (stream: true), then follows it through
// GET /v1/runs/{run}/events after the last event it saw: while it waits for an
// approval (the run resumes by itself once people decide) and after a client
// tool's output is sent. Everything shown is text: tool output never becomes HTML.

const WAIT_MS = { requires_approval: 2_000, other: 300 };

function pause(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    const timer = setTimeout(resolve, ms);
    signal.addEventListener("abort", () => (clearTimeout(timer), resolve()), { once: true });
  });
}

function errorText(error: unknown): string {
  return error instanceof Error ? error.message : "Erreur inattendue.";
}

/**
 * Why POST /v1/runs refused to start a run, in French and with what to do:
 * the API's message is English and written for API clients.
 */
export function refusalText(error: ApiClientError): string {
  if (error.code === "model_provider_unavailable") {
    const provider = typeof error.reason?.provider === "string" ? error.reason.provider : undefined;
    const name = provider?.toUpperCase().replace(/[^A-Z0-9]/g, "");
    return (
      `Aucun fournisseur n’est configuré pour le modèle de cet agent${provider ? ` (fournisseur «\u00a0${provider}\u00a0»)` : ""} : ` +
      "aucun run n’a démarré. Un propriétaire ou un administrateur de l’organisation règle son URL de base et sa clé API " +
      "dans Développeurs › Modèles" +
      (name
        ? `, ou l’opérateur du serveur définit GUICHET_MODEL_${name}_API_KEY (ou GUICHET_MODEL_${name}_BASE_URL)`
        : "") +
      ". Vous pouvez aussi choisir pour l’agent un modèle dont le fournisseur est configuré."
    );
  }
  if (error.code === "agent_inactive")
    return "Cet agent est désactivé : réactivez-le pour l’essayer. Aucun run n’a démarré.";
  if (error.code === "not_found") return "Cet agent n’existe plus. Aucun run n’a démarré.";
  return `Le run n’a pas pu démarrer (${error.code}) : ${error.message}`;
}

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
  const [state, dispatch] = useReducer(tryReducer, initialTryState);
  // The same reducer, read synchronously by the follow loop between renders.
  const live = useRef(initialTryState);
  const controller = useRef<AbortController | null>(null);
  const [draft, setDraft] = useState("");
  const [error, setError] = useState<string>();

  const apply = (action: TryAction) => {
    live.current = tryReducer(live.current, action);
    dispatch(action);
  };
  const onEvent = (event: StreamedEvent) => apply({ type: "event", event: event as RunEvent });

  useEffect(() => () => controller.current?.abort(), []);

  async function follow(runId: string, signal: AbortSignal): Promise<void> {
    while (!signal.aborted) {
      const before = live.current.lastEventId;
      await streamEvents(
        listRunEventsEndpoint,
        { params: { run: runId }, lastEventId: before || undefined, signal },
        onEvent,
      );
      const status = live.current.status;
      if (!isLive(status)) return;
      if (status === "streaming" && live.current.lastEventId === before) {
        // Nothing new and no end: the run was cancelled or expired, or is between two events.
        const { data } = await call(getRunEndpoint, { params: { run: runId }, signal });
        if (data.status !== "active") return apply({ type: "status", status: "stopped" });
      }
      await pause(status === "requires_approval" ? WAIT_MS.requires_approval : WAIT_MS.other, signal);
    }
  }

  async function guarded(work: (signal: AbortSignal) => Promise<void>) {
    controller.current?.abort();
    const current = new AbortController();
    controller.current = current;
    setError(undefined);
    try {
      await work(current.signal);
    } catch (caught) {
      if (current.signal.aborted) return;
      setError(errorText(caught));
      if (isLive(live.current.status)) apply({ type: "status", status: "stopped" });
    }
  }

  function send(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    const text = draft.trim();
    if (!text) return setError("Écrivez un message pour l’agent.");
    setDraft("");
    apply({ type: "send", text });
    const input = conversationOf(live.current.items);
    void guarded(async (signal) => {
      try {
        await streamEvents(
          createRunEndpoint,
          { body: { agent: agentId, input, stream: true, capabilities: "read_write" }, signal },
          onEvent,
        );
      } catch (caught) {
        // Refused before the run existed (no provider, inactive agent…): the conversation stays, no run
        // is shown as stopped, and the message says what to configure.
        if (caught instanceof ApiClientError && !live.current.runId) {
          apply({ type: "status", status: "idle" });
          setError(refusalText(caught));
          return;
        }
        throw caught;
      }
      const runId = live.current.runId;
      if (runId && isLive(live.current.status)) await follow(runId, signal);
    });
  }

  function submitOutputs(outputs: Record<string, string>) {
    const runId = live.current.runId;
    if (!runId) return;
    const tool_outputs = live.current.pending.map((call) => ({
      tool_call_id: call.id,
      output: outputs[call.id] ?? "",
    }));
    apply({ type: "status", status: "resuming" });
    void guarded(async (signal) => {
      const posted = call(createToolOutputsEndpoint, { params: { run: runId }, body: { tool_outputs }, signal }).catch(
        (caught: unknown) => {
          setError(errorText(caught));
          apply({ type: "status", status: "requires_action" });
        },
      );
      await follow(runId, signal);
      await posted;
    });
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
      {error && <ErrorText>{error}</ErrorText>}
      {state.status === "requires_action" && (
        <ClientToolForm key={state.lastEventId} pending={state.pending} onSubmit={submitOutputs} />
      )}
      <form onSubmit={send} className="space-y-2" noValidate>
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
          <Button
            type="button"
            variant="ghost"
            onClick={() => {
              controller.current?.abort();
              apply({ type: "reset" });
              setError(undefined);
            }}
          >
            Nouvelle conversation
          </Button>
        </div>
      </form>
    </div>
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
