"use client";

import { useState } from "react";
import { Badge } from "@/components/ui/badge";
import { Button } from "@/components/ui/button";
import { EmptyState } from "@/components/ui/empty-state";
import { Table, Td, Th } from "@/components/ui/table";
import { useAgents } from "@/components/agents/queries";
import { capabilityLabels, dateTime, deletedAgentLabel, runStatusLabels } from "./labels";
import { NewRunDrawer } from "./new-run-drawer";
import { useRunsPage } from "./queries";
import { RunDrawer } from "./run-drawer";
import { ErrorText } from "@/components/ui/error-text";

// The runs of the organization, newest first; a run opens in a drawer with its steps.

export function RunsPanel({ canWrite, memberId }: { canWrite: boolean; memberId: string }) {
  const [cursor, setCursor] = useState<string | undefined>();
  const [opened, setOpened] = useState<string | null>(null);
  const [creating, setCreating] = useState(false);
  const runs = useRunsPage(cursor);
  const agents = useAgents();
  const agentName = (id: string | null) =>
    id === null ? deletedAgentLabel : (agents.data?.find((a) => a.id === id)?.name ?? id);

  return (
    <section aria-labelledby="runs-title" className="space-y-3">
      <div className="flex items-center justify-between">
        <h2 id="runs-title" className="text-lg font-semibold">
          Runs
        </h2>
        {canWrite && <Button onClick={() => setCreating(true)}>Nouveau run</Button>}
      </div>
      {runs.isPending ? (
        <p className="text-sm text-slate-500">Chargement…</p>
      ) : runs.isError ? (
        <ErrorText>{runs.error.message}</ErrorText>
      ) : runs.data.data.length === 0 ? (
        <EmptyState title="Aucun run">Un run exécute un agent ; chaque appel d’outil y devient une étape.</EmptyState>
      ) : (
        <>
          <Table caption="Runs de l’organisation">
            <thead>
              <tr>
                <Th>Run</Th>
                <Th>Agent</Th>
                <Th>Statut</Th>
                <Th>Capacités</Th>
                <Th>Outils</Th>
                <Th>Créé</Th>
                <Th>
                  <span className="sr-only">Ouvrir</span>
                </Th>
              </tr>
            </thead>
            <tbody className="divide-y divide-slate-100">
              {runs.data.data.map((run) => {
                const status = runStatusLabels[run.status] ?? { label: run.status, tone: "neutral" as const };
                return (
                  <tr key={run.id}>
                    <Td>
                      <code className="text-xs">{run.id}</code>
                    </Td>
                    <Td className={run.agent === null ? "text-slate-500 italic" : undefined}>{agentName(run.agent)}</Td>
                    <Td>
                      <Badge tone={status.tone}>{status.label}</Badge>
                      {run.debug && (
                        <span className="ml-1">
                          <Badge tone="warning">débogage</Badge>
                        </span>
                      )}
                    </Td>
                    <Td>{capabilityLabels[run.capabilities]}</Td>
                    <Td className="tabular-nums">
                      {run.capability_set.length}
                      {run.warnings.length > 0 && (
                        <span className="ml-1 text-xs text-amber-700">
                          ({run.warnings.length} écarté{run.warnings.length > 1 ? "s" : ""})
                        </span>
                      )}
                    </Td>
                    <Td className="whitespace-nowrap text-slate-600">{dateTime.format(new Date(run.created_at))}</Td>
                    <Td className="text-right">
                      <Button
                        variant="secondary"
                        onClick={() => setOpened(run.id)}
                        aria-label={`Étapes du run ${run.id}`}
                      >
                        Étapes
                      </Button>
                    </Td>
                  </tr>
                );
              })}
            </tbody>
          </Table>
          <div className="flex gap-2">
            {cursor && (
              <Button variant="ghost" onClick={() => setCursor(undefined)}>
                Plus récents
              </Button>
            )}
            {runs.data.next_cursor && (
              <Button variant="ghost" onClick={() => setCursor(runs.data.next_cursor ?? undefined)}>
                Plus anciens
              </Button>
            )}
          </div>
        </>
      )}
      {opened && (
        <RunDrawer
          runId={opened}
          agentName={agentName}
          canWrite={canWrite}
          memberId={memberId}
          onClose={() => setOpened(null)}
        />
      )}
      {creating && (
        <NewRunDrawer
          agents={agents.data ?? []}
          onClose={() => setCreating(false)}
          onCreated={(id) => {
            setCreating(false);
            setOpened(id);
          }}
        />
      )}
    </section>
  );
}
