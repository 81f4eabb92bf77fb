"use client";

import { useMutation, useQueryClient } from "@tanstack/react-query";
import { useState } from "react";
import { toast } from "sonner";
import { JsonBlock } from "@/components/catalog/json-block";
import { Badge } from "@/components/ui/badge";
import { Button } from "@/components/ui/button";
import { Drawer } from "@/components/ui/drawer";
import { ApiClientError } from "@/lib/client/errors";
import type { McpServerObject, McpToolObject, McpToolUpdateBody } from "@/lib/mcp/schemas";
import type { z } from "zod";
import { ContractNotes } from "./contract-notes";
import { mcpKeys, updateMcpTool, useMcpTools } from "./queries";
import { ErrorText } from "@/components/ui/error-text";

const fieldLabels: Record<McpToolObject["changes"][number]["field"], string> = {
  description: "Description",
  input_schema: "Schéma d’entrée",
  output_schema: "Schéma de sortie",
};

/** A server's tools: what changed since the last review, and the reviewer's decisions. */
export function ToolReview({
  server,
  onClose,
  onChanged,
}: {
  server?: McpServerObject;
  onClose: () => void;
  onChanged: () => void;
}) {
  const tools = useMcpTools(server?.id);
  const listed = (tools.data ?? []).filter((tool) => !tool.removed_at);
  return (
    <Drawer
      open={Boolean(server)}
      onOpenChange={(open) => !open && onClose()}
      title={`Outils de ${server?.name ?? ""}`}
      description="Un outil nouveau ou modifié reste indisponible tant qu’une personne ne l’a pas revu."
    >
      {tools.isPending ? (
        <p className="text-sm text-slate-500">Chargement…</p>
      ) : tools.isError ? (
        <ErrorText>{tools.error.message}</ErrorText>
      ) : (
        <ul className="space-y-3">
          {listed.map((tool) => (
            <ToolCard
              key={`${tool.name}:${tool.fingerprint}`}
              serverId={server!.id}
              tool={tool}
              onChanged={onChanged}
            />
          ))}
        </ul>
      )}
    </Drawer>
  );
}

function ToolCard({ serverId, tool, onChanged }: { serverId: number; tool: McpToolObject; onChanged: () => void }) {
  const queryClient = useQueryClient();
  const [writes, setWrites] = useState(tool.writes_data);
  const [enabled, setEnabled] = useState(tool.enabled);
  const needsReview = tool.status === "needs_review";
  const patch = useMutation({
    mutationFn: (body: z.input<typeof McpToolUpdateBody>) => updateMcpTool(serverId, tool.name, body),
    onSuccess: ({ data }) => {
      toast.success(
        data.status === "reviewed" && needsReview ? `« ${tool.name} » revu.` : `« ${tool.name} » mis à jour.`,
      );
      void queryClient.invalidateQueries({ queryKey: mcpKeys.tools(serverId) });
      onChanged();
    },
    onError: (error) => {
      toast.error(
        error instanceof ApiClientError && error.code === "mcp_tool_changed"
          ? "L’outil a changé entre-temps : relisez la nouvelle version."
          : error.message,
      );
      void queryClient.invalidateQueries({ queryKey: mcpKeys.tools(serverId) });
    },
  });
  const headingId = `tool-${tool.name}`;

  return (
    <li className="rounded-lg border border-slate-200 p-4" aria-labelledby={headingId} data-tool-name={tool.name}>
      <div className="flex flex-wrap items-center justify-between gap-2">
        <h3 id={headingId} className="font-mono text-sm font-semibold">
          {tool.name}
        </h3>
        <div className="flex gap-2">
          {needsReview ? <Badge tone="warning">À revoir</Badge> : <Badge tone="success">Revu</Badge>}
          {!tool.enabled && <Badge>Désactivé</Badge>}
          {tool.writes_data && <Badge tone="warning">Écrit des données</Badge>}
        </div>
      </div>
      <p className="mt-1 text-sm text-slate-600">{tool.description || "Pas de description."}</p>
      <ContractNotes tool={tool} />

      {needsReview && (
        <section className="mt-3 space-y-3" aria-label={`Changements de ${tool.name}`}>
          <p className="text-sm font-medium">
            {tool.reviewed_at ? "Ce qui a changé depuis la dernière revue" : "Nouvel outil : tout est à lire"}
          </p>
          {tool.changes.map((change) => (
            <div key={change.field} className="space-y-1">
              <p className="text-xs font-semibold tracking-wide text-slate-500 uppercase">
                {fieldLabels[change.field]}
              </p>
              <div className={`grid min-w-0 gap-2 ${tool.reviewed_at ? "md:grid-cols-2" : ""}`}>
                {tool.reviewed_at && (
                  <div>
                    <p className="text-xs text-slate-500">Avant</p>
                    <JsonBlock label={`${fieldLabels[change.field]} avant`} value={change.before} />
                  </div>
                )}
                <div>
                  {tool.reviewed_at && <p className="text-xs text-slate-500">Après</p>}
                  <JsonBlock
                    label={`${fieldLabels[change.field]} ${tool.reviewed_at ? "après" : ""}`}
                    value={change.after}
                  />
                </div>
              </div>
            </div>
          ))}
          {tool.replay && <ReplaySummary replay={tool.replay} />}
        </section>
      )}

      <fieldset className="mt-3 space-y-2 text-sm">
        <legend className="sr-only">Réglages de {tool.name}</legend>
        <label className="flex items-start gap-2">
          <input type="checkbox" checked={writes} onChange={(e) => setWrites(e.target.checked)} className="mt-1" />
          <span>
            Cet outil modifie des données (écriture)
            <span className="block text-xs text-slate-500">
              Les annotations du serveur suggèrent : {tool.suggested_writes_data ? "écriture" : "lecture seule"}. Ce
              n’est qu’un indice : c’est vous qui décidez.
            </span>
          </span>
        </label>
        <label className="flex items-center gap-2">
          <input type="checkbox" checked={enabled} onChange={(e) => setEnabled(e.target.checked)} /> Activé
        </label>
      </fieldset>
      <div className="mt-3 flex gap-2">
        {needsReview ? (
          <Button
            onClick={() =>
              patch.mutate({ reviewed: true, fingerprint: tool.fingerprint, writes_data: writes, enabled })
            }
            disabled={patch.isPending}
          >
            Valider la revue
          </Button>
        ) : (
          <Button
            variant="secondary"
            onClick={() => patch.mutate({ writes_data: writes, enabled })}
            disabled={patch.isPending || (writes === tool.writes_data && enabled === tool.enabled)}
          >
            Enregistrer
          </Button>
        )}
      </div>
    </li>
  );
}

/** The recorded calls of the tool (traced runs) checked against the version under review, before anyone approves it. */
function ReplaySummary({ replay }: { replay: NonNullable<McpToolObject["replay"]> }) {
  const first = replay.now_refused.slice(0, 3);
  const moved = replay.effects_changed.slice(0, 3);
  const warn = replay.refused > 0 || replay.effects_changed.length > 0;
  return (
    <div
      className={`rounded-md border px-3 py-2 text-sm ${warn ? "border-amber-300 bg-amber-50" : "border-slate-200"}`}
      data-testid="replay-summary"
    >
      <p className="font-medium">
        {replay.checked === 0
          ? "Aucun appel enregistré de cet outil : activez la trace d’un agent pour juger les prochains changements."
          : `Cette version refuserait ${replay.refused} des ${replay.checked} appels enregistrés.`}
      </p>
      {first.length > 0 && (
        <ul className="mt-1 list-disc pl-5 text-xs">
          {first.map((refusal) => (
            <li key={refusal.trace}>
              <span className="font-mono">{refusal.field || "/"}</span> : {refusal.code}
              {refusal.redacted && " (valeur expurgée dans la trace)"}
            </li>
          ))}
        </ul>
      )}
      {moved.length > 0 && (
        <>
          <p className="mt-1 font-medium">
            {`${replay.effects_changed.length} appel(s) enregistré(s) n’auraient plus le même effet ou la même approbation :`}
          </p>
          <ul className="mt-1 list-disc pl-5 text-xs">
            {moved.map((change) => (
              <li key={change.trace}>
                {change.changed.includes("effect") && `${effectWords(change.recorded)} → ${effectWords(change.now)}`}
                {change.changed.length === 2 && " ; "}
                {change.changed.includes("approval") &&
                  `approbation : ${approvalWords(change.recorded.approval)} → ${approvalWords(change.now.approval)}`}
              </li>
            ))}
          </ul>
        </>
      )}
    </div>
  );
}

type ReplayEffects = NonNullable<McpToolObject["replay"]>["effects_changed"][number]["now"];

const effectWords = (effects: ReplayEffects) => (effects.effect === "write" ? "écriture" : "lecture");

function approvalWords(approval: ReplayEffects["approval"]): string {
  if (approval === null) return "aucune";
  if (approval.decision === "allow") return "sans décision";
  if (approval.decision === "deny") return "refusée";
  return `${approval.approvals_required} personne(s)`;
}
