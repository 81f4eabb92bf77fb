"use client";

import { useMemo, useState } from "react";
import { EmptyState } from "@/components/ui/empty-state";
import { Button } from "@/components/ui/button";
import { Table, Td, Th } from "@/components/ui/table";
import { kindLabels, type CatalogEntry } from "./labels";
import { useCatalog } from "./queries";
import { ToolDetail } from "./tool-detail";
import { ToolStatus, WritesBadge } from "./tool-status";
import { ErrorText } from "@/components/ui/error-text";

type Filter<T extends string> = T | "all";

const selectClass = "rounded-md border border-slate-300 bg-white px-2 py-1.5 text-sm";

/** The "Outils" page: every catalog entry, filterable, each with its availability in words. */
export function ToolCatalog() {
  const tools = useCatalog();
  const [kind, setKind] = useState<Filter<CatalogEntry["kind"]>>("all");
  const [availability, setAvailability] = useState<Filter<"available" | "unavailable">>("all");
  const [writes, setWrites] = useState<Filter<"writes" | "reads">>("all");
  const [selected, setSelected] = useState<string>();

  const visible = useMemo(
    () =>
      (tools.data ?? []).filter(
        (entry) =>
          (kind === "all" || entry.kind === kind) &&
          (availability === "all" || entry.available === (availability === "available")) &&
          (writes === "all" || entry.writes_data === (writes === "writes")),
      ),
    [tools.data, kind, availability, writes],
  );

  if (tools.isPending) return <p className="text-sm text-slate-500">Chargement…</p>;
  if (tools.isError) return <ErrorText>{tools.error.message}</ErrorText>;
  const unavailable = tools.data.filter((entry) => !entry.available).length;

  return (
    <div className="space-y-4">
      <div role="group" aria-label="Filtres" className="flex flex-wrap items-end gap-4 text-sm">
        <label className="space-y-1">
          <span className="block font-medium">Type</span>
          <select
            className={selectClass}
            value={kind}
            onChange={(e) => setKind(e.target.value as Filter<CatalogEntry["kind"]>)}
          >
            <option value="all">Tous</option>
            {Object.entries(kindLabels).map(([value, label]) => (
              <option key={value} value={value}>
                {label}
              </option>
            ))}
          </select>
        </label>
        <label className="space-y-1">
          <span className="block font-medium">Disponibilité</span>
          <select
            className={selectClass}
            value={availability}
            onChange={(e) => setAvailability(e.target.value as Filter<"available" | "unavailable">)}
          >
            <option value="all">Tous</option>
            <option value="available">Disponibles</option>
            <option value="unavailable">Indisponibles</option>
          </select>
        </label>
        <label className="space-y-1">
          <span className="block font-medium">Effet</span>
          <select
            className={selectClass}
            value={writes}
            onChange={(e) => setWrites(e.target.value as Filter<"writes" | "reads">)}
          >
            <option value="all">Tous</option>
            <option value="writes">Écrit des données</option>
            <option value="reads">Lecture seule</option>
          </select>
        </label>
        <p className="ml-auto text-slate-600" aria-live="polite">
          {visible.length} outil{visible.length > 1 ? "s" : ""} affiché{visible.length > 1 ? "s" : ""} · {unavailable}{" "}
          indisponible{unavailable > 1 ? "s" : ""} au total
        </p>
      </div>

      {visible.length === 0 ? (
        <EmptyState title="Aucun outil ne correspond à ces filtres" />
      ) : (
        <Table caption="Catalogue d’outils">
          <thead>
            <tr>
              <Th>Outil</Th>
              <Th>Type</Th>
              <Th>Disponibilité</Th>
              <Th>Effet</Th>
              <Th>
                <span className="sr-only">Détails</span>
              </Th>
            </tr>
          </thead>
          <tbody className="divide-y divide-slate-100">
            {visible.map((entry) => (
              <tr key={entry.key} data-tool={entry.key}>
                <Td>
                  <p className="font-medium">{entry.label}</p>
                  <code className="text-xs text-slate-500">{entry.key}</code>
                </Td>
                <Td className="whitespace-nowrap">{entry.server ? entry.server.name : kindLabels[entry.kind]}</Td>
                <Td>
                  <ToolStatus entry={entry} />
                </Td>
                <Td>
                  <WritesBadge writes={entry.writes_data} />
                </Td>
                <Td className="text-right">
                  <Button
                    variant="secondary"
                    onClick={() => setSelected(entry.key)}
                    aria-label={`Détails de ${entry.label}`}
                  >
                    Détails
                  </Button>
                </Td>
              </tr>
            ))}
          </tbody>
        </Table>
      )}
      <ToolDetail toolKey={selected} onClose={() => setSelected(undefined)} />
    </div>
  );
}
