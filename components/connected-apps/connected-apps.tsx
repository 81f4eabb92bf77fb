"use client";

import { useMutation, useQueryClient } from "@tanstack/react-query";
import { toast } from "sonner";
import { Badge } from "@/components/ui/badge";
import { Card } from "@/components/ui/card";
import { ConfirmButton } from "@/components/ui/confirm-button";
import { EmptyState } from "@/components/ui/empty-state";
import { QueryState } from "@/components/ui/query-state";
import { Table, Td, Th } from "@/components/ui/table";
import { scopeLabels } from "@/lib/oauth/schemas";
import { connectedAppKeys, deleteClient, revokeGrant, useClients, useGrants } from "./queries";

// « Applications connectées »: the MCP clients a member let act for them by
// OAuth, each revocable at once. Owners and administrators see every member's
// grants and the clients they went to.

const dateFormat = new Intl.DateTimeFormat("fr-FR", { dateStyle: "medium", timeStyle: "short" });
const when = (value: string | null) => (value ? dateFormat.format(new Date(value)) : "Jamais");

export function ConnectedApps({ manager }: { manager: boolean }) {
  const client = useQueryClient();
  const grants = useGrants();
  const clients = useClients(manager);
  const refresh = () => void client.invalidateQueries({ queryKey: connectedAppKeys.all });
  const revoke = useMutation({
    mutationFn: revokeGrant,
    onSuccess: () => {
      toast.success("Accès révoqué.");
      refresh();
    },
    onError: (error) => toast.error(error.message),
  });
  const remove = useMutation({
    mutationFn: deleteClient,
    onSuccess: () => {
      toast.success("Application supprimée pour l’organisation.");
      refresh();
    },
    onError: (error) => toast.error(error.message),
  });
  return (
    <Card as="section" padding="none" className="space-y-3 px-5 py-4" aria-labelledby="connected-apps">
      <h2 id="connected-apps" className="text-sm font-semibold text-slate-900">
        Applications connectées
      </h2>
      <p className="text-sm text-slate-600">
        Les clients MCP (Claude, ChatGPT, VS Code…) autorisés à agir {manager ? "pour les membres" : "pour vous"} sur un
        agent. Révoquer coupe l’accès dès leur prochaine requête.
      </p>
      <QueryState
        query={grants}
        isEmpty={(list) => list.length === 0}
        empty={<EmptyState title="Aucune application connectée" />}
      >
        {(list) => (
          <Table caption="Applications connectées">
            <thead>
              <tr>
                <Th>Application</Th>
                {manager && <Th>Membre</Th>}
                <Th>Agent</Th>
                <Th>Accès</Th>
                <Th>Autorisée le</Th>
                <Th>Dernière utilisation</Th>
                <Th>
                  <span className="sr-only">Actions</span>
                </Th>
              </tr>
            </thead>
            <tbody className="divide-y divide-slate-100">
              {list.map((grant) => (
                <tr key={grant.id}>
                  <Td className="font-medium">
                    {grant.client.name} <Badge>non vérifié</Badge>
                  </Td>
                  {manager && <Td>{grant.member.name}</Td>}
                  <Td>{grant.agent.name ?? "Agent supprimé"}</Td>
                  <Td>{scopeLabels[grant.scope]}</Td>
                  <Td>{when(grant.created_at)}</Td>
                  <Td>{when(grant.last_used_at)}</Td>
                  <Td>
                    <ConfirmButton
                      question={`Révoquer l’accès de « ${grant.client.name} » ?`}
                      detail="L’application devra demander une nouvelle autorisation."
                      confirmLabel="Révoquer l’accès"
                      onConfirm={() => revoke.mutate(grant.id)}
                    >
                      Révoquer
                    </ConfirmButton>
                  </Td>
                </tr>
              ))}
            </tbody>
          </Table>
        )}
      </QueryState>
      {manager && (
        <QueryState query={clients} isEmpty={(list) => list.length === 0} empty={null}>
          {(list) => (
            <Table caption="Applications enregistrées">
              <thead>
                <tr>
                  <Th>Application enregistrée</Th>
                  <Th>Identifiant</Th>
                  <Th>Accès actifs</Th>
                  <Th>
                    <span className="sr-only">Actions</span>
                  </Th>
                </tr>
              </thead>
              <tbody className="divide-y divide-slate-100">
                {list.map((app) => (
                  <tr key={app.id}>
                    <Td className="font-medium">{app.name}</Td>
                    <Td>
                      <code className="text-xs break-all">{app.client_id}</code>
                    </Td>
                    <Td>{app.active_grants}</Td>
                    <Td>
                      <ConfirmButton
                        question={`Supprimer « ${app.name} » pour l’organisation ?`}
                        detail="Tous les accès des membres à cette application sont révoqués."
                        confirmLabel="Supprimer"
                        onConfirm={() => remove.mutate(app.id)}
                      >
                        Supprimer
                      </ConfirmButton>
                    </Td>
                  </tr>
                ))}
              </tbody>
            </Table>
          )}
        </QueryState>
      )}
    </Card>
  );
}
