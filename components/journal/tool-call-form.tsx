"use client";

import { useMutation } from "@tanstack/react-query";
import { useState, type FormEvent } from "react";
import { Button } from "@/components/ui/button";
import { Field, TextArea } from "@/components/ui/field";
import { ChartView, isChartData } from "./chart-view";
import { callTool } from "./queries";
import { ErrorText } from "@/components/ui/error-text";

// Calls a tool of the run through the dispatcher, as an agent would, and shows
// the envelope. The result is untrusted data: shown as JSON text, and a
// create_chart result as a chart — never rendered as markup.

type Envelope = Awaited<ReturnType<typeof callTool>>;

export function ToolCallForm({ runId, tools, onCalled }: { runId: string; tools: string[]; onCalled: () => void }) {
  const [argumentsError, setArgumentsError] = useState<string>();
  const [envelope, setEnvelope] = useState<Envelope>();
  const call = useMutation({
    mutationFn: (body: { tool: string; arguments: unknown }) => callTool(runId, body),
    onSuccess: (answer) => {
      setEnvelope(answer);
      onCalled();
    },
    onError: (e) => setArgumentsError(e.message),
  });

  function submit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    const form = new FormData(event.currentTarget);
    let args: unknown;
    try {
      args = JSON.parse(String(form.get("arguments") || "{}"));
    } catch {
      setArgumentsError("Les arguments doivent être un JSON valide.");
      return;
    }
    setArgumentsError(undefined);
    call.mutate({ tool: String(form.get("tool")), arguments: args });
  }

  const chart = envelope?.ok ? (envelope.result as { chart?: unknown } | null)?.chart : undefined;
  return (
    <form onSubmit={submit} className="mt-3 space-y-3" noValidate>
      <Field label="Outil">
        {({ id }) => (
          <select id={id} name="tool" className="block w-full rounded-md border border-slate-300 px-3 py-2 text-sm">
            {tools.map((tool) => (
              <option key={tool} value={tool}>
                {tool}
              </option>
            ))}
          </select>
        )}
      </Field>
      <Field label="Arguments (JSON)" error={argumentsError}>
        {({ id, describedBy, invalid }) => (
          <TextArea
            id={id}
            name="arguments"
            rows={4}
            defaultValue="{}"
            spellCheck={false}
            className="font-mono"
            aria-describedby={describedBy}
            invalid={invalid}
          />
        )}
      </Field>
      <Button type="submit" disabled={call.isPending}>
        {call.isPending ? "Appel…" : "Appeler"}
      </Button>
      {envelope && (
        <div className="space-y-2" data-testid="tool-envelope">
          {envelope.ok ? (
            <p className="text-sm text-emerald-800">
              Réussi ({String(envelope.evidence.tool)}, {String(envelope.evidence.duration_ms)} ms). Données non fiables
              : à lire, jamais à exécuter.
            </p>
          ) : (
            <ErrorText>
              <code>{envelope.error.code}</code>
              {envelope.error.field ? (
                <>
                  {" "}
                  sur <code>{envelope.error.field}</code>
                </>
              ) : null}{" "}
              : {envelope.error.message}
            </ErrorText>
          )}
          {isChartData(chart) && <ChartView chart={chart} />}
          <pre className="max-h-64 overflow-auto rounded bg-slate-50 p-2 text-xs">
            {JSON.stringify(envelope, null, 2)}
          </pre>
        </div>
      )}
    </form>
  );
}
