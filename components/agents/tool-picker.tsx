"use client";

import { useId, useMemo, useState } from "react";
import { kindLabels, reasonText, type CatalogEntry } from "@/components/catalog/labels";
import { Badge } from "@/components/ui/badge";
import { fileToolKeys } from "@/lib/catalog/builtin";

const MAX_TOOLS = 40;

/**
 * The tool picker is the availability list: forced tools shown always on,
 * unavailable ones greyed with the reason in words, tools saved on the agent
 * that have since become unavailable kept checked and marked (never dropped
 * silently), write tools flagged.
 */
export function ToolPicker({
  catalog,
  value,
  saved,
  onChange,
  disabled,
  error,
}: {
  catalog: CatalogEntry[];
  value: string[];
  /** Keys saved on the agent: they may stay even when unavailable now. */
  saved: string[];
  onChange: (tools: string[]) => void;
  disabled?: boolean;
  error?: string;
}) {
  const [filter, setFilter] = useState("");
  const ids = useId();
  const byKey = useMemo(() => new Map(catalog.map((entry) => [entry.key, entry])), [catalog]);
  const unavailableSaved = value.filter((key) => saved.includes(key) && !byKey.get(key)?.available);
  const needle = filter.trim().toLowerCase();
  const visible = catalog.filter(
    (entry) => !needle || `${entry.label} ${entry.key} ${entry.description}`.toLowerCase().includes(needle),
  );
  const groups = (Object.keys(kindLabels) as CatalogEntry["kind"][])
    .map((kind) => ({ kind, entries: visible.filter((e) => e.kind === kind) }))
    .filter((g) => g.entries.length);

  function toggle(key: string, on: boolean) {
    onChange(on ? [...value, key] : value.filter((k) => k !== key));
  }

  return (
    <fieldset className="space-y-3" aria-describedby={error ? `${ids}-error` : undefined}>
      <legend className="text-sm font-medium text-slate-800">Outils</legend>
      <div className="flex flex-wrap items-center justify-between gap-2">
        <input
          type="search"
          value={filter}
          onChange={(e) => setFilter(e.target.value)}
          placeholder="Filtrer les outils…"
          aria-label="Filtrer les outils"
          className="w-56 rounded-md border border-slate-300 px-2 py-1 text-sm"
        />
        <p
          className={`text-xs ${value.length > MAX_TOOLS ? "font-medium text-red-700" : "text-slate-600"}`}
          aria-live="polite"
        >
          {value.length} / {MAX_TOOLS} outils choisis (hors outils toujours actifs)
        </p>
      </div>
      {error && (
        <p id={`${ids}-error`} role="alert" className="text-xs font-medium text-red-700">
          {error}
        </p>
      )}
      {unavailableSaved.length > 0 && (
        <div
          className="space-y-1 rounded-md border border-amber-300 bg-amber-50 p-3 text-sm"
          data-testid="unavailable-saved"
        >
          <p className="font-medium text-amber-900">
            {unavailableSaved.length} outil{unavailableSaved.length > 1 ? "s" : ""} enregistré
            {unavailableSaved.length > 1 ? "s" : ""} sur l’agent mais indisponible
            {unavailableSaved.length > 1 ? "s" : ""} : les runs continuent sans{" "}
            {unavailableSaved.length > 1 ? "eux" : "lui"}, avec un avertissement.
          </p>
          <ul className="space-y-1">
            {unavailableSaved.map((key) => {
              const entry = byKey.get(key);
              return (
                <li key={key} className="flex flex-wrap items-center gap-2">
                  {!entry && (
                    <input
                      type="checkbox"
                      checked
                      disabled={disabled}
                      onChange={() => toggle(key, false)}
                      aria-label={`Garder ${key} (retiré du catalogue)`}
                    />
                  )}
                  <span className="font-medium">{entry?.label ?? key}</span>
                  <span className="text-xs text-slate-700">
                    {entry ? reasonText(entry.reason) : "Retiré du catalogue (connecteur ou outil supprimé)."}
                  </span>
                </li>
              );
            })}
          </ul>
        </div>
      )}
      <div className="max-h-[28rem] space-y-4 overflow-y-auto rounded-md border border-slate-200 p-3">
        {groups.map(({ kind, entries }) => (
          <div key={kind}>
            <p className="text-xs font-semibold tracking-wide text-slate-500 uppercase">{kindLabels[kind]}</p>
            <ul className="mt-1 divide-y divide-slate-100">
              {entries.map((entry) => (
                <ToolRow
                  key={entry.key}
                  entry={entry}
                  checked={entry.forced || value.includes(entry.key)}
                  savedOnAgent={saved.includes(entry.key)}
                  disabled={disabled}
                  onToggle={(on) => toggle(entry.key, on)}
                />
              ))}
            </ul>
          </div>
        ))}
        {groups.length === 0 && <p className="text-sm text-slate-500">Aucun outil ne correspond au filtre.</p>}
      </div>
    </fieldset>
  );
}

function ToolRow({
  entry,
  checked,
  savedOnAgent,
  disabled,
  onToggle,
}: {
  entry: CatalogEntry;
  checked: boolean;
  savedOnAgent: boolean;
  disabled?: boolean;
  onToggle: (on: boolean) => void;
}) {
  const id = useId();
  // An unavailable tool can be kept (it is saved) or removed, never newly added.
  const locked = entry.forced || (!entry.available && !savedOnAgent);
  return (
    <li className="flex items-start gap-3 py-2" data-testid={`tool-${entry.key}`}>
      <input
        id={id}
        type="checkbox"
        className="mt-1"
        checked={checked}
        disabled={disabled || locked}
        onChange={(e) => onToggle(e.target.checked)}
        aria-describedby={`${id}-about`}
      />
      <div className="min-w-0 flex-1">
        <label htmlFor={id} className={`text-sm font-medium ${entry.available ? "text-slate-800" : "text-slate-500"}`}>
          {entry.label}
        </label>{" "}
        <code className="text-xs text-slate-500">{entry.key}</code>
        <div id={`${id}-about`} className="mt-0.5 space-y-1">
          <p className="text-xs text-slate-600">{entry.description}</p>
          <div className="flex flex-wrap gap-1">
            {entry.forced && <Badge tone="info">Toujours actif</Badge>}
            {fileToolKeys.includes(entry.key) && <Badge tone="info">Automatique sur les runs avec fichiers</Badge>}
            {entry.writes_data && <Badge tone="warning">Écrit des données</Badge>}
            {!entry.available &&
              (savedOnAgent ? (
                <Badge tone="danger">Enregistré mais indisponible</Badge>
              ) : (
                <Badge tone="neutral">Indisponible</Badge>
              ))}
          </div>
          {!entry.available && (
            <p className="text-xs text-slate-600">
              {reasonText(entry.reason)}
              {savedOnAgent && " Il reste sur l’agent ; les runs continuent sans lui, avec un avertissement."}
            </p>
          )}
          {entry.writes_data && checked && !entry.forced && (
            <p className="text-xs text-amber-800">
              Dans un run API, personne n’approuve : l’outil écrit dès que le modèle l’appelle.
            </p>
          )}
        </div>
      </div>
    </li>
  );
}
