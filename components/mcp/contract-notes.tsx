import { Badge } from "@/components/ui/badge";
import type { McpToolObject } from "@/lib/mcp/schemas";

// What the reviewer of an MCP tool should know about the contract Guichet will
// publish from it: the bounds Guichet adds where the server's schema has none,
// and the enums that look like live facts.

const boundLabels: Record<McpToolObject["guichet_bounds"][number]["keyword"], string> = {
  maxLength: "longueur maximale",
  minimum: "minimum",
  maximum: "maximum",
  maxItems: "nombre maximal d’éléments",
  maxProperties: "nombre maximal de propriétés",
};

const signalLabels: Record<McpToolObject["live_fact_enums"][number]["signals"][number], string> = {
  many_values: "beaucoup de valeurs",
  id_shaped: "des valeurs en forme d’identifiant",
  changed_between_syncs: "des valeurs changées depuis la synchronisation précédente",
};

const numberFormat = new Intl.NumberFormat("fr-FR");

export function ContractNotes({ tool }: { tool: McpToolObject }) {
  if (tool.guichet_bounds.length === 0 && tool.live_fact_enums.length === 0) return null;
  return (
    <div className="mt-3 space-y-2">
      {tool.live_fact_enums.map((flag) => (
        <div
          key={flag.pointer}
          className="rounded-md border border-amber-300 bg-amber-50 px-3 py-2 text-sm"
          data-testid="live-fact-enum"
        >
          <p className="flex flex-wrap items-center gap-2 font-medium">
            <Badge tone="warning">Faits vivants ?</Badge>
            L’énumération <span className="font-mono">{flag.pointer || "/"}</span> ({flag.value_count} valeurs) contient{" "}
            {flag.signals.map((s) => signalLabels[s]).join(", ")}
            {flag.id_examples.length > 0 && <span className="font-mono text-xs">({flag.id_examples.join(", ")})</span>}
          </p>
          <p className="mt-1 text-xs text-slate-700">{flag.reason}</p>
        </div>
      ))}
      {tool.guichet_bounds.length > 0 && (
        <details className="rounded-md border border-slate-200 px-3 py-2 text-sm" data-testid="guichet-bounds">
          <summary className="cursor-pointer font-medium">
            Bornes ajoutées par Guichet ({tool.guichet_bounds.length})
          </summary>
          <p className="mt-1 text-xs text-slate-600">
            Le schéma du serveur ne borne pas ces champs : le contrat publié porte les bornes de Guichet, et un appel
            qui les dépasse est refusé avant d’atteindre le serveur.
          </p>
          <ul className="mt-1 list-disc pl-5 text-xs">
            {tool.guichet_bounds.map((bound) => (
              <li key={`${bound.pointer}:${bound.keyword}`}>
                <span className="font-mono">{bound.pointer || "/"}</span> : {boundLabels[bound.keyword]}{" "}
                {numberFormat.format(bound.value)}
              </li>
            ))}
          </ul>
        </details>
      )}
    </div>
  );
}
