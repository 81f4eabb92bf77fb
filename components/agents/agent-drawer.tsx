"use client";

import { useMutation, useQueryClient } from "@tanstack/react-query";
import { useState } from "react";
import { toast } from "sonner";
import { Button } from "@/components/ui/button";
import { Drawer } from "@/components/ui/drawer";
import type { AgentObject } from "@/lib/agents/schemas";
import { scopesForRole, type Role } from "@/lib/auth/scopes";
import { AgentForm } from "./agent-form";
import { CurlSnippet } from "./curl-snippet";
import { McpClientSection } from "./mcp-client-section";
import { DocumentsSection } from "./documents-section";
import { TryPanel } from "./try-panel";
import { hasKeptConversation } from "./try-storage";
import { agentKeys, deleteAgent, useCatalog, useModels } from "./queries";
import { ErrorText } from "@/components/ui/error-text";

/** The agent drawer: create or edit every field, documents, API snippet, delete. */
export function AgentDrawer({
  open,
  agent,
  canWrite,
  viewer,
  canTrace,
  onOpenChange,
  onSaved,
}: {
  open: boolean;
  /** null: a new agent. */
  agent: AgentObject | null;
  canWrite: boolean;
  /** The signed-in member: who may try the agent, and decide its proposals inline. */
  viewer: { id: string; role: Role };
  canTrace: boolean;
  onOpenChange: (open: boolean) => void;
  onSaved: (agent: AgentObject) => void;
}) {
  const catalog = useCatalog();
  const models = useModels();
  const title = agent ? agent.name : "Nouvel agent";
  return (
    <Drawer
      open={open}
      onOpenChange={onOpenChange}
      title={title}
      description={agent ? agent.id : "Instructions, modèle et outils qu’un run exécute."}
    >
      {catalog.isPending || models.isPending ? (
        <p className="text-sm text-slate-500">Chargement…</p>
      ) : catalog.isError || models.isError ? (
        <ErrorText>{(catalog.error ?? models.error)?.message}</ErrorText>
      ) : (
        <div className="space-y-8">
          <AgentForm
            key={agent?.id ?? "new"}
            agent={agent}
            catalog={catalog.data}
            models={models.data}
            canWrite={canWrite}
            canTrace={canTrace}
            onSaved={onSaved}
          />
          {agent && (
            <>
              {scopesForRole(viewer.role).includes("runs:write") && <TrySection agentId={agent.id} viewer={viewer} />}
              <DocumentsSection agentId={agent.id} canWrite={canWrite} />
              <CurlSnippet agentId={agent.id} />
              <McpClientSection agentId={agent.id} />
              {canWrite && <DeleteAgent agent={agent} onDeleted={() => onOpenChange(false)} />}
            </>
          )}
        </div>
      )}
    </Drawer>
  );
}

function DeleteAgent({ agent, onDeleted }: { agent: AgentObject; onDeleted: () => void }) {
  const queryClient = useQueryClient();
  const [confirming, setConfirming] = useState(false);
  const remove = useMutation({
    mutationFn: () => deleteAgent(agent.id),
    onSuccess: () => {
      toast.success(`Agent « ${agent.name} » supprimé.`);
      queryClient.removeQueries({ queryKey: agentKeys.detail(agent.id) });
      void queryClient.invalidateQueries({ queryKey: agentKeys.list() });
      onDeleted();
    },
    onError: (error) => toast.error(error.message),
  });
  return (
    <section aria-labelledby="delete-title" className="space-y-2 rounded-md border border-red-200 p-4">
      <h3 id="delete-title" className="text-sm font-semibold text-red-800">
        Supprimer l’agent
      </h3>
      {confirming ? (
        <div className="space-y-2" role="alertdialog" aria-labelledby="delete-confirm">
          <p id="delete-confirm" className="text-sm">
            Supprimer « {agent.name} », ses documents et leurs fichiers ? C’est définitif. L’historique de ses runs est
            conservé (le Journal les montre avec « Agent supprimé ») ; ils n’acceptent plus d’appel d’outil.
          </p>
          <div className="flex gap-2">
            <Button variant="danger" disabled={remove.isPending} onClick={() => remove.mutate()}>
              Supprimer définitivement
            </Button>
            <Button variant="secondary" onClick={() => setConfirming(false)}>
              Annuler
            </Button>
          </div>
        </div>
      ) : (
        <Button variant="secondary" onClick={() => setConfirming(true)}>
          Supprimer…
        </Button>
      )}
    </section>
  );
}

/** "Essayer": opens a chat with the saved agent, run by Guichet (a managed, streamed run). */
function TrySection({ agentId, viewer }: { agentId: string; viewer: { id: string; role: Role } }) {
  // Open at once when a conversation waits for this agent (back from « Connecter »).
  const [open, setOpen] = useState(() => hasKeptConversation(agentId));
  return (
    <section aria-labelledby="try-title" className="space-y-3">
      <div className="flex items-center justify-between gap-3">
        <div>
          <h3 id="try-title" className="text-sm font-semibold">
            Essayer l’agent
          </h3>
          <p className="text-xs text-slate-500">
            Un vrai run : chaque outil passe par Guichet, et une écriture attend son approbation.
          </p>
        </div>
        {!open && (
          <Button variant="secondary" onClick={() => setOpen(true)}>
            Essayer
          </Button>
        )}
      </div>
      {open && <TryPanel agentId={agentId} viewer={viewer} />}
    </section>
  );
}
