"use client";

import type { Role } from "@/lib/auth/scopes";
import { Plus } from "lucide-react";
import { useSearchParams } from "next/navigation";
import { useEffect, useMemo, useRef, useState } from "react";
import { Badge } from "@/components/ui/badge";
import { Button } from "@/components/ui/button";
import { EmptyState } from "@/components/ui/empty-state";
import { Table, Td, Th } from "@/components/ui/table";
import type { AgentObject } from "@/lib/agents/schemas";
import { forcedToolKeys } from "@/lib/catalog/builtin";
import { AgentDrawer } from "./agent-drawer";
import { useAgents, useModels } from "./queries";
import { ErrorText } from "@/components/ui/error-text";

type ActiveFilter = "all" | "active" | "inactive";
const dateFormat = new Intl.DateTimeFormat("fr-FR", { dateStyle: "medium", timeStyle: "short" });

/** "Développeurs › Agents": the table, its search and filter, and the drawer. */
export function AgentsPanel({
  canWrite,
  canTrace,
  viewer,
}: {
  canWrite: boolean;
  canTrace: boolean;
  viewer: { id: string; role: Role };
}) {
  const agents = useAgents();
  const models = useModels();
  const [search, setSearch] = useState("");
  const [activeFilter, setActiveFilter] = useState<ActiveFilter>("all");
  const [drawer, setDrawer] = useState<{ open: boolean; agent: AgentObject | null }>({ open: false, agent: null });
  // `/agents?agent=…` opens that agent's drawer (the way back from connecting a connector in « Essayer »).
  const linked = useSearchParams().get("agent");
  const linkedOpened = useRef(false);
  useEffect(() => {
    const agent = linked ? agents.data?.find((a) => a.id === linked) : undefined;
    if (!agent || linkedOpened.current) return;
    linkedOpened.current = true;
    setDrawer({ open: true, agent });
  }, [linked, agents.data]);

  const visible = useMemo(() => {
    const needle = search.trim().toLocaleLowerCase("fr");
    return (agents.data ?? []).filter(
      (a) =>
        (!needle || a.name.toLocaleLowerCase("fr").includes(needle) || a.id.includes(needle)) &&
        (activeFilter === "all" || a.active === (activeFilter === "active")),
    );
  }, [agents.data, search, activeFilter]);
  const modelName = (id: string | null) =>
    id === null ? "Par défaut" : (models.data?.find((m) => m.id === id)?.name ?? id);

  return (
    <div className="space-y-4">
      <div className="flex flex-wrap items-end gap-3">
        <label className="space-y-1 text-sm">
          <span className="block font-medium">Rechercher</span>
          <input
            type="search"
            value={search}
            onChange={(e) => setSearch(e.target.value)}
            placeholder="Nom ou identifiant"
            className="w-64 rounded-md border border-slate-300 px-3 py-1.5 text-sm"
          />
        </label>
        <label className="space-y-1 text-sm">
          <span className="block font-medium">État</span>
          <select
            value={activeFilter}
            onChange={(e) => setActiveFilter(e.target.value as ActiveFilter)}
            className="rounded-md border border-slate-300 bg-white px-2 py-1.5 text-sm"
          >
            <option value="all">Tous</option>
            <option value="active">Actifs</option>
            <option value="inactive">Inactifs</option>
          </select>
        </label>
        {canWrite && (
          <Button className="ml-auto" onClick={() => setDrawer({ open: true, agent: null })}>
            <Plus size={16} /> Nouvel agent
          </Button>
        )}
      </div>

      {agents.isPending ? (
        <p className="text-sm text-slate-500">Chargement…</p>
      ) : agents.isError ? (
        <ErrorText>{agents.error.message}</ErrorText>
      ) : agents.data.length === 0 ? (
        <EmptyState
          title="Aucun agent"
          action={canWrite && <Button onClick={() => setDrawer({ open: true, agent: null })}>Créer un agent</Button>}
        >
          Un agent réunit les instructions, le modèle et les outils qu’un run exécute.
        </EmptyState>
      ) : visible.length === 0 ? (
        <EmptyState title="Aucun agent ne correspond à la recherche" />
      ) : (
        <Table caption="Agents">
          <thead>
            <tr>
              <Th>Nom</Th>
              <Th>Modèle</Th>
              <Th>Outils</Th>
              <Th>État</Th>
              <Th>Modifié</Th>
            </tr>
          </thead>
          <tbody className="divide-y divide-slate-100">
            {visible.map((agent) => (
              <tr key={agent.id}>
                <Td>
                  <button
                    type="button"
                    className="font-medium text-brand-700 hover:underline"
                    onClick={() => setDrawer({ open: true, agent })}
                  >
                    {agent.name}
                  </button>
                  <p className="text-xs text-slate-500">
                    <code>{agent.id}</code>
                  </p>
                </Td>
                <Td className="text-slate-700">{modelName(agent.model)}</Td>
                <Td>
                  <span className="text-slate-700">
                    {agent.tools.length} + {forcedToolKeys.length} toujours actifs
                  </span>
                  {agent.unavailable_tools.length > 0 && (
                    <div className="mt-1">
                      <Badge tone="warning">
                        {agent.unavailable_tools.length} indisponible{agent.unavailable_tools.length > 1 ? "s" : ""}
                      </Badge>
                    </div>
                  )}
                </Td>
                <Td>{agent.active ? <Badge tone="success">Actif</Badge> : <Badge>Inactif</Badge>}</Td>
                <Td className="whitespace-nowrap text-slate-600">{dateFormat.format(new Date(agent.updated_at))}</Td>
              </tr>
            ))}
          </tbody>
        </Table>
      )}

      <AgentDrawer
        open={drawer.open}
        agent={drawer.agent}
        canWrite={canWrite}
        viewer={viewer}
        canTrace={canTrace}
        onOpenChange={(open) => setDrawer((d) => ({ ...d, open }))}
        onSaved={(agent) => setDrawer({ open: true, agent })}
      />
    </div>
  );
}
