"use client";

import type { FormEvent } from "react";
import { Button } from "@/components/ui/button";
import { TextInput } from "@/components/ui/field";
import { auditActionLabels, auditActions, type AuditAction } from "@/lib/audit/schemas";
import type { AuditFilterValues } from "./queries";
import { Card } from "@/components/ui/card";

/** A date field (yyyy-mm-dd, local day) from an ISO bound, and back: `to` is exclusive, so the day after. */
const DAY_MS = 24 * 60 * 60 * 1000;
function dayOf(iso: string | undefined, exclusiveEnd = false): string {
  if (!iso) return "";
  const date = new Date(new Date(iso).getTime() - (exclusiveEnd ? DAY_MS : 0));
  const pad = (n: number) => String(n).padStart(2, "0");
  return `${date.getFullYear()}-${pad(date.getMonth() + 1)}-${pad(date.getDate())}`;
}
function isoOf(day: string, exclusiveEnd = false): string | undefined {
  if (!day) return undefined;
  const [year, month, date] = day.split("-").map(Number);
  return new Date(year, month - 1, date + (exclusiveEnd ? 1 : 0)).toISOString();
}

const labelClass = "block text-xs font-medium text-slate-700";
const selectClass = "block w-full rounded-md border border-slate-300 bg-white px-3 py-2 text-sm";

export function AuditFilters({
  filters,
  onChange,
}: {
  filters: AuditFilterValues;
  onChange: (filters: AuditFilterValues) => void;
}) {
  function onSubmit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    const form = new FormData(event.currentTarget);
    const text = (name: string) => String(form.get(name) ?? "").trim() || undefined;
    onChange({
      action: text("action") as AuditAction | undefined,
      actor: text("actor"),
      target: text("target"),
      from: isoOf(String(form.get("from") ?? "")),
      to: isoOf(String(form.get("to") ?? ""), true),
    });
  }

  return (
    <Card
      as="form"
      padding="sm"
      className="grid gap-3 sm:grid-cols-2 lg:grid-cols-[minmax(0,14rem)_minmax(0,1fr)_minmax(0,1fr)_minmax(0,9rem)_minmax(0,9rem)_auto]"
      // A new key when the filters change elsewhere (a click on an actor), so the fields show them.
      key={JSON.stringify(filters)}
      onSubmit={onSubmit}
      aria-label="Filtres du journal d’audit"
    >
      <label className={labelClass}>
        Action
        <select name="action" defaultValue={filters.action ?? ""} className={`${selectClass} mt-1`}>
          <option value="">Toutes les actions</option>
          {auditActions.map((action) => (
            <option key={action} value={action}>
              {auditActionLabels[action]}
            </option>
          ))}
        </select>
      </label>
      <label className={labelClass}>
        Acteur (identifiant)
        <TextInput name="actor" defaultValue={filters.actor ?? ""} placeholder="mem_…" className="mt-1" />
      </label>
      <label className={labelClass}>
        Cible (identifiant)
        <TextInput name="target" defaultValue={filters.target ?? ""} placeholder="agt_…, key_…" className="mt-1" />
      </label>
      <label className={labelClass}>
        Du
        <TextInput type="date" name="from" defaultValue={dayOf(filters.from)} className="mt-1" />
      </label>
      <label className={labelClass}>
        Au
        <TextInput type="date" name="to" defaultValue={dayOf(filters.to, true)} className="mt-1" />
      </label>
      <div className="flex items-end gap-2">
        <Button type="submit">Filtrer</Button>
        <Button variant="ghost" onClick={() => onChange({})}>
          Effacer
        </Button>
      </div>
    </Card>
  );
}
