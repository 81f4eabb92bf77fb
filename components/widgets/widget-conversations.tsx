"use client";

import { useState } from "react";
import { Badge } from "@/components/ui/badge";
import { QueryState } from "@/components/ui/query-state";
import { useWidgetConversation, useWidgetConversations } from "./queries";

/** The widget's visitor conversations, read-only: each message with its run and the answer. */
export function WidgetConversations({ widgetId }: { widgetId: string }) {
  const conversations = useWidgetConversations(widgetId);
  const [open, setOpen] = useState<string | null>(null);
  return (
    <QueryState
      query={conversations}
      isEmpty={(rows) => rows.length === 0}
      empty={<p className="text-sm text-slate-500">Aucune conversation pour l’instant.</p>}
    >
      {(rows) => (
        <ul className="divide-y rounded-md border text-sm">
          {rows.map((row) => (
            <li key={row.id} className="p-2">
              <button
                type="button"
                className="w-full text-left"
                aria-expanded={open === row.id}
                onClick={() => setOpen(open === row.id ? null : row.id)}
              >
                {row.preview && <Badge tone="info">Aperçu</Badge>}{" "}
                <span className="font-medium">{row.visitor.name ?? row.visitor.id}</span> · {row.messages} message
                {row.messages > 1 ? "s" : ""} · <span className="text-slate-500">{row.origin}</span>
              </button>
              {open === row.id && <ConversationTurns widgetId={widgetId} conversationId={row.id} />}
            </li>
          ))}
        </ul>
      )}
    </QueryState>
  );
}

function ConversationTurns({ widgetId, conversationId }: { widgetId: string; conversationId: string }) {
  const detail = useWidgetConversation(widgetId, conversationId);
  return (
    <QueryState query={detail}>
      {(data) => (
        <ol className="mt-2 space-y-2">
          {data.turns.map((turn) => (
            <li key={turn.id} className="rounded bg-slate-50 p-2">
              <p>
                <span className="font-medium">Visiteur :</span> {turn.content}
              </p>
              <p className="whitespace-pre-wrap">
                <span className="font-medium">Agent :</span> {turn.answer ?? `(${turn.run_status ?? "sans exécution"})`}
              </p>
              {turn.run && (
                <p className="text-xs text-slate-500">
                  Exécution <code>{turn.run}</code>
                </p>
              )}
            </li>
          ))}
        </ol>
      )}
    </QueryState>
  );
}
