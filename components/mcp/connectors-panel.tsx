"use client";

import { useMutation, useQueryClient } from "@tanstack/react-query";
import { Plug, RefreshCw } from "lucide-react";
import { useState } from "react";
import { toast } from "sonner";
import { Badge } from "@/components/ui/badge";
import { Button } from "@/components/ui/button";
import { ConfirmButton } from "@/components/ui/confirm-button";
import { EmptyState } from "@/components/ui/empty-state";
import { QueryState } from "@/components/ui/query-state";
import { Table, Td, Th } from "@/components/ui/table";
import { toolKeys } from "@/components/catalog/queries";
import { MemberConnectionCounts } from "@/components/connections/member-counts";
import { ApiClientError } from "@/lib/client/errors";
import type { McpServerObject } from "@/lib/mcp/schemas";
import { authLabels, dateFormat, syncErrorLabels } from "./labels";
import { deleteMcpServer, mcpKeys, setMcpServerActive, syncMcpServer, useMcpServers } from "./queries";
import { ServerForm } from "./server-form";
import { ToolReview } from "./tool-review";
import { Card } from "@/components/ui/card";

/** The "Connecteurs MCP" page: servers, sync, activation, removal, and the way into each server's review. */
export function ConnectorsPanel() {
  const queryClient = useQueryClient();
  const [reviewing, setReviewing] = useState<McpServerObject>();
  const servers = useMcpServers();
  const refresh = () => {
    void queryClient.invalidateQueries({ queryKey: mcpKeys.all });
    void queryClient.invalidateQueries({ queryKey: toolKeys.all });
  };
  const sync = useMutation({
    mutationFn: syncMcpServer,
    onSuccess: ({ data, sync: s }) => {
      const parts = [`${s.added.length} nouveau(x)`, `${s.changed.length} modifié(s)`, `${s.removed.length} retiré(s)`];
      toast.success(`« ${data.name} » synchronisé : ${parts.join(", ")}.`);
      if (s.live_fact_enums.length > 0)
        toast.warning(`${s.live_fact_enums.length} énumération(s) ressemblent à des faits vivants : voyez la revue.`, {
          description: s.live_fact_enums[0].reason,
        });
      refresh();
    },
    onError: (error) => {
      const code =
        error instanceof ApiClientError ? (error.reason?.code as keyof typeof syncErrorLabels | undefined) : undefined;
      toast.error(`Échec de la synchronisation${code ? ` — ${syncErrorLabels[code]}` : ""}. Rien n’a été modifié.`, {
        description: error.message,
      });
      refresh();
    },
  });
  const update = useMutation({
    mutationFn: ({ id, active }: { id: number; active: boolean }) => setMcpServerActive(id, active),
    onSuccess: refresh,
    onError: (error) => toast.error(error.message),
  });
  const remove = useMutation({
    mutationFn: deleteMcpServer,
    onSuccess: () => {
      toast.success("Connecteur supprimé.");
      refresh();
    },
    onError: (error) => toast.error(error.message),
  });

  return (
    <div className="grid gap-8 xl:grid-cols-[minmax(0,1fr)_22rem]">
      <section aria-labelledby="servers-title">
        <h2 id="servers-title" className="sr-only">
          Serveurs connectés
        </h2>
        <QueryState
          query={servers}
          isEmpty={(list) => list.length === 0}
          empty={
            <EmptyState title="Aucun connecteur">
              Ajoutez un serveur MCP pour proposer ses outils à vos agents.
            </EmptyState>
          }
        >
          {(list) => (
            <Table caption="Connecteurs MCP">
              <thead>
                <tr>
                  <Th>Serveur</Th>
                  <Th>Authentification</Th>
                  <Th>Outils</Th>
                  <Th>Synchronisation</Th>
                  <Th>
                    <span className="sr-only">Actions</span>
                  </Th>
                </tr>
              </thead>
              <tbody className="divide-y divide-slate-100">
                {list.map((server) => (
                  <tr key={server.id} data-server={server.name}>
                    <Td>
                      <p className="flex items-center gap-2 font-medium">
                        {server.name} {server.active ? <Badge tone="success">Actif</Badge> : <Badge>Inactif</Badge>}
                      </p>
                      <code className="text-xs break-all text-slate-500">{server.url}</code>
                    </Td>
                    <Td className="whitespace-nowrap">
                      {authLabels[server.auth]}
                      {server.has_token && " · jeton enregistré"}
                      <MemberConnectionCounts server={server} />
                    </Td>
                    <Td className="whitespace-nowrap">
                      {server.tool_count} outil{server.tool_count > 1 ? "s" : ""}
                      {server.tools_needing_review > 0 && (
                        <div>
                          <Badge tone="warning">{server.tools_needing_review} à revoir</Badge>
                        </div>
                      )}
                    </Td>
                    <Td className="text-xs text-slate-600">
                      {server.last_synced_at ? dateFormat.format(new Date(server.last_synced_at)) : "Jamais"}
                      {server.last_sync_error && (
                        <p role="status" className="mt-1 max-w-xs text-red-700">
                          Dernier échec : {syncErrorLabels[server.last_sync_error.code]}
                        </p>
                      )}
                    </Td>
                    <Td>
                      <div className="flex flex-wrap justify-end gap-2">
                        <Button
                          variant="secondary"
                          onClick={() => sync.mutate(server.id)}
                          disabled={sync.isPending && sync.variables === server.id}
                          aria-label={`Synchroniser ${server.name}`}
                        >
                          <RefreshCw size={14} aria-hidden />{" "}
                          {sync.isPending && sync.variables === server.id ? "Synchronisation…" : "Synchroniser"}
                        </Button>
                        <Button
                          variant="secondary"
                          onClick={() => setReviewing(server)}
                          disabled={server.tool_count === 0}
                          aria-label={`Outils et revue de ${server.name}`}
                        >
                          Outils et revue
                        </Button>
                        <Button
                          variant="ghost"
                          onClick={() => update.mutate({ id: server.id, active: !server.active })}
                        >
                          {server.active ? "Désactiver" : "Activer"}
                        </Button>
                        <ConfirmButton
                          variant="ghost"
                          question={`Supprimer « ${server.name} » ?`}
                          detail="Ses outils disparaîtront du catalogue."
                          confirmLabel="Supprimer le connecteur"
                          onConfirm={() => remove.mutate(server.id)}
                        >
                          Supprimer
                        </ConfirmButton>
                      </div>
                    </Td>
                  </tr>
                ))}
              </tbody>
            </Table>
          )}
        </QueryState>
      </section>

      <Card as="section" className="h-fit" aria-labelledby="new-server-title">
        <h2 id="new-server-title" className="flex items-center gap-2 font-semibold">
          <Plug size={16} aria-hidden /> Nouveau connecteur
        </h2>
        <ServerForm />
      </Card>
      <ToolReview server={reviewing} onClose={() => setReviewing(undefined)} onChanged={refresh} />
    </div>
  );
}
