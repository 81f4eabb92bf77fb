import { Badge } from "@/components/ui/badge";
import { fileToolKeys } from "@/lib/catalog/builtin";
import { reasonText, type CatalogEntry } from "./labels";

/** Whether a tool can be used, and if not why, in words: the availability list's one cell. */
export function ToolStatus({ entry }: { entry: CatalogEntry }) {
  if (!entry.available) {
    return (
      <div className="space-y-1">
        <Badge tone="danger">Indisponible</Badge>
        <p className="max-w-sm text-xs text-slate-600">{reasonText(entry.reason)}</p>
      </div>
    );
  }
  if (entry.forced) return <Badge tone="info">Toujours actif</Badge>;
  if (fileToolKeys.includes(entry.key)) return <Badge tone="info">Automatique avec des fichiers</Badge>;
  return <Badge tone="success">Disponible</Badge>;
}

export function WritesBadge({ writes }: { writes: boolean }) {
  return writes ? (
    <Badge tone="warning">Écrit des données</Badge>
  ) : (
    <span className="text-xs text-slate-500">Lecture seule</span>
  );
}
