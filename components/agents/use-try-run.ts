"use client";

import { useEffect, useReducer, useRef, useState } from "react";
import { call } from "@/lib/client/call";
import { ApiClientError } from "@/lib/client/errors";
import { streamEvents, type StreamedEvent } from "@/lib/client/stream";
import type { RunEvent } from "@/lib/runs/event-schemas";
import { createRunEndpoint, createToolOutputsEndpoint, getRunEndpoint, listRunEventsEndpoint } from "@/lib/runs/api";
import { conversationOf, initialTryState, isLive, tryReducer, type TryAction } from "./try-state";
import { takeConversation } from "./try-storage";

// The run behind « Essayer »: a managed, streamed run of the agent, started with
// POST /v1/runs (stream: true), then followed through GET /v1/runs/{run}/events
// after the last event seen: while it waits for an approval (the run resumes by
// itself once people decide) and after a client tool's output is sent.

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

/** The conversation with the agent and what moves it on: a message sent, client tools' outputs given. */
export function useTryRun(agentId: string) {
  const [state, dispatch] = useReducer(tryReducer, initialTryState);
  // The same reducer, read synchronously by the follow loop between renders.
  const live = useRef(initialTryState);
  const controller = useRef<AbortController | null>(null);
  const [error, setError] = useState<string>();

  const apply = (action: TryAction) => {
    live.current = tryReducer(live.current, action);
    dispatch(action);
  };
  const onEvent = (event: StreamedEvent) => apply({ type: "event", event: event as RunEvent });

  useEffect(() => () => controller.current?.abort(), []);

  // Back from connecting a connector (« Connecter »): the conversation goes on where it was.
  useEffect(() => {
    const kept = takeConversation(agentId);
    if (!kept) return;
    apply({ type: "restore", state: kept });
    if (kept.runId && isLive(kept.status)) {
      const runId = kept.runId;
      void guarded((signal) => follow(runId, signal));
    }
    // Once, when the panel opens for this agent.
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [agentId]);

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

  function send(text: string) {
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

  /** « Nouvelle conversation »: stops following the run (which goes on) and starts afresh. */
  function reset() {
    controller.current?.abort();
    apply({ type: "reset" });
    setError(undefined);
  }

  return { state, error, setError, send, submitOutputs, reset };
}
