"use client";

import { useState } from "react";
import { useAgents } from "@/components/agents/queries";
import { QueryState } from "@/components/ui/query-state";
import { useWidgets } from "./queries";
import { WidgetCard } from "./widget-card";
import { WidgetForm } from "./widget-form";

/** "Développeurs › Widget": the organization's widgets and the form for a new one. */
export function WidgetsPanel({ canWrite }: { canWrite: boolean }) {
  const widgets = useWidgets();
  const agents = useAgents();
  const [created, setCreated] = useState<{ name: string; secret: string } | null>(null);
  const agentName = (id: string) => agents.data?.find((agent) => agent.id === id)?.name ?? id;
  return (
    <div className="space-y-6">
      <QueryState
        query={widgets}
        isEmpty={(rows) => rows.length === 0}
        empty={<p className="text-sm text-slate-500">Aucun widget : créez-en un ci-dessous.</p>}
      >
        {(rows) => (
          <div className="space-y-4">
            {rows.map((widget) => (
              <WidgetCard key={widget.id} widget={widget} agentName={agentName(widget.agent)} canPreview={canWrite} />
            ))}
          </div>
        )}
      </QueryState>
      <section aria-labelledby="new-widget" className="rounded-lg border p-4">
        <h2 id="new-widget" className="text-base font-semibold">
          Nouveau widget
        </h2>
        {created && (
          <p role="status" className="mt-2 rounded bg-amber-50 p-2 text-sm text-amber-900">
            Widget « {created.name} » créé. Son secret de signature, affiché une seule fois :{" "}
            <code className="break-all">{created.secret}</code>
          </p>
        )}
        <WidgetForm onCreated={setCreated} />
      </section>
    </div>
  );
}
