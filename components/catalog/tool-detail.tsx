"use client";

import { Drawer } from "@/components/ui/drawer";
import { JsonBlock } from "./json-block";
import { kindLabels } from "./labels";
import { useTool } from "./queries";
import { ToolStatus, WritesBadge } from "./tool-status";
import { ErrorText } from "@/components/ui/error-text";

/** The detail panel of one catalog entry: description, availability, server and schemas. */
export function ToolDetail({ toolKey, onClose }: { toolKey?: string; onClose: () => void }) {
  const tool = useTool(toolKey);
  const data = tool.data;
  return (
    <Drawer
      open={Boolean(toolKey)}
      onOpenChange={(open) => !open && onClose()}
      title={data?.label ?? toolKey ?? ""}
      description={toolKey}
    >
      {tool.isPending ? (
        <p className="text-sm text-slate-500">Chargement…</p>
      ) : tool.isError ? (
        <ErrorText>{tool.error.message}</ErrorText>
      ) : data ? (
        <div className="space-y-5 text-sm">
          <p>{data.description || "Pas de description."}</p>
          <dl className="grid grid-cols-[10rem_minmax(0,1fr)] gap-x-4 gap-y-2">
            <dt className="text-slate-500">Type</dt>
            <dd>{kindLabels[data.kind]}</dd>
            <dt className="text-slate-500">Serveur</dt>
            <dd>{data.server ? `${data.server.name} (n° ${data.server.id})` : "—"}</dd>
            <dt className="text-slate-500">Disponibilité</dt>
            <dd>
              <ToolStatus entry={data} />
            </dd>
            <dt className="text-slate-500">Effet</dt>
            <dd>
              <WritesBadge writes={data.writes_data} />
            </dd>
          </dl>
          <section className="space-y-2">
            <h3 className="font-semibold">Paramètres (input schema)</h3>
            {data.input_schema ? (
              <JsonBlock label="Schéma d’entrée" value={data.input_schema} />
            ) : (
              <p className="text-slate-500">Pas encore de contrat publié pour cet outil.</p>
            )}
          </section>
          <section className="space-y-2">
            <h3 className="font-semibold">Résultat (output schema)</h3>
            {data.output_schema ? (
              <JsonBlock label="Schéma de sortie" value={data.output_schema} />
            ) : (
              <p className="text-slate-500">Aucun schéma de sortie déclaré.</p>
            )}
          </section>
        </div>
      ) : null}
    </Drawer>
  );
}
