"use client";

import type { RunObject } from "@/lib/runs/schemas";
import { useRunMessages } from "./queries";
import { ErrorText } from "@/components/ui/error-text";

// A managed run's side of the journal: what Guichet sent its model and what
// came back, its token usage and its output. Everything is shown as text —
// tool results are third parties' data and never become markup.

const roleLabels: Record<string, string> = {
  system: "Instructions",
  user: "Utilisateur",
  assistant: "Modèle",
  tool: "Résultat d’outil",
};

function Section({ id, title, children }: { id: string; title: string; children: React.ReactNode }) {
  return (
    <section aria-labelledby={id} className="space-y-2">
      <h3 id={id} className="text-sm font-semibold">
        {title}
      </h3>
      {children}
    </section>
  );
}

export function RunTranscript({ run }: { run: RunObject }) {
  const messages = useRunMessages(run.id, run.managed);
  if (!run.managed) return null;
  return (
    <div className="space-y-6" data-testid="run-transcript">
      {run.usage && (
        <Section id="usage-title" title="Consommation">
          <p className="text-sm">
            {run.usage.input_tokens} jetons en entrée, {run.usage.output_tokens} en sortie,{" "}
            {run.usage.model_calls.length} appel{run.usage.model_calls.length > 1 ? "s" : ""} au modèle{" "}
            <code className="text-xs">{run.model}</code>
          </p>
        </Section>
      )}
      {run.error && (
        <ErrorText>
          Échec ({run.error.code}) : {run.error.message}
        </ErrorText>
      )}
      {run.output && (
        <Section id="output-title" title="Réponse">
          <p className="text-sm whitespace-pre-wrap">{run.output.text}</p>
          {run.output.json !== undefined && (
            <pre className="overflow-x-auto rounded bg-slate-50 p-2 text-xs" data-testid="output-json">
              {JSON.stringify(run.output.json, null, 2)}
            </pre>
          )}
        </Section>
      )}
      <Section id="transcript-title" title="Conversation avec le modèle">
        {messages.isPending ? (
          <p className="text-sm text-slate-500">Chargement…</p>
        ) : messages.isError ? (
          <ErrorText>{messages.error.message}</ErrorText>
        ) : messages.data.length === 0 ? (
          <p className="text-sm text-slate-500">Conversation supprimée (durée de conservation écoulée).</p>
        ) : (
          <ol className="space-y-2">
            {messages.data.map((message, index) => (
              <li key={index} className="rounded-md border border-slate-200 p-2" data-testid="transcript-message">
                <p className="text-xs font-medium text-slate-500">{roleLabels[message.role] ?? message.role}</p>
                {message.content && <pre className="text-xs break-words whitespace-pre-wrap">{message.content}</pre>}
                {message.tool_calls?.map((toolCall) => (
                  <p key={toolCall.id} className="font-mono text-xs text-slate-700">
                    → {toolCall.function.name}({toolCall.function.arguments})
                  </p>
                ))}
              </li>
            ))}
          </ol>
        )}
      </Section>
    </div>
  );
}
