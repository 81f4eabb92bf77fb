"use client";

import { Download } from "lucide-react";
import { usePathname, useRouter, useSearchParams } from "next/navigation";
import { useMemo } from "react";
import { Badge } from "@/components/ui/badge";
import { Button } from "@/components/ui/button";
import { EmptyState } from "@/components/ui/empty-state";
import { Table, Td, Th } from "@/components/ui/table";
import { AuditAction, type AuditEventObject } from "@/lib/audit/schemas";
import { AuditFilters } from "./audit-filters";
import { actionLabel, actorTypeLabels, dateTimeFormat, detailText, targetTypeLabels } from "./labels";
import { auditExportUrl, useAuditEvents, type AuditFilterValues } from "./queries";
import { ErrorText } from "@/components/ui/error-text";

const filterNames = ["action", "actor", "target", "from", "to"] as const;

/** The filters are the page's URL query: a filtered view can be reloaded, bookmarked and shared. */
function useUrlFilters(): [AuditFilterValues, (filters: AuditFilterValues) => void] {
  const params = useSearchParams();
  const router = useRouter();
  const pathname = usePathname();
  const filters = useMemo(() => {
    const values: AuditFilterValues = {};
    const action = AuditAction.safeParse(params.get("action"));
    if (action.success) values.action = action.data;
    for (const name of ["actor", "target", "from", "to"] as const) {
      const value = params.get(name);
      if (value && (name !== "from" && name !== "to" ? true : !Number.isNaN(Date.parse(value)))) values[name] = value;
    }
    return values;
  }, [params]);
  const setFilters = (next: AuditFilterValues) => {
    const search = new URLSearchParams();
    for (const name of filterNames) if (next[name]) search.set(name, next[name]);
    const query = search.toString();
    router.replace(query ? `${pathname}?${query}` : pathname, { scroll: false });
  };
  return [filters, setFilters];
}

function Actor({ actor, onPick }: { actor: AuditEventObject["actor"]; onPick: (id: string) => void }) {
  return (
    <div className="space-y-0.5">
      <p className="font-medium text-slate-800">{actor.label ?? actorTypeLabels[actor.type]}</p>
      <p className="text-xs text-slate-500">
        {actorTypeLabels[actor.type]}
        {actor.id && (
          <>
            {" · "}
            <button
              type="button"
              className="font-mono underline decoration-dotted hover:text-slate-800"
              title="Filtrer sur cet acteur"
              onClick={() => onPick(actor.id!)}
            >
              {actor.id}
            </button>
          </>
        )}
      </p>
    </div>
  );
}

function Details({ details }: { details: Record<string, unknown> }) {
  const entries = Object.entries(details);
  if (entries.length === 0) return <span className="text-slate-400">—</span>;
  return (
    <dl className="grid min-w-64 grid-cols-[auto_1fr] gap-x-2 text-xs">
      {entries.map(([key, value]) => (
        <div key={key} className="contents">
          <dt className="text-slate-500">{key}</dt>
          <dd className="break-words text-slate-800">{detailText(value)}</dd>
        </div>
      ))}
    </dl>
  );
}

export function AuditPanel() {
  const [filters, setFilters] = useUrlFilters();
  const events = useAuditEvents(filters);
  const rows = events.data?.pages.flatMap((page) => page.data) ?? [];
  const filtered = Object.keys(filters).length > 0;

  return (
    <div className="space-y-4">
      <AuditFilters filters={filters} onChange={setFilters} />
      <div className="flex flex-wrap items-center justify-between gap-2">
        <p className="text-sm text-slate-600" aria-live="polite">
          {events.isSuccess &&
            `${rows.length} événement${rows.length > 1 ? "s" : ""} affiché${rows.length > 1 ? "s" : ""}${events.hasNextPage ? ", d’autres suivent" : ""}.`}
        </p>
        <a
          href={auditExportUrl(filters)}
          download
          className="inline-flex items-center gap-2 rounded-md border border-slate-300 bg-white px-3 py-2 text-sm font-medium text-slate-800 hover:bg-slate-50"
        >
          <Download size={14} /> Exporter en CSV
        </a>
      </div>
      {events.isPending ? (
        <p className="text-sm text-slate-500">Chargement…</p>
      ) : events.isError ? (
        <ErrorText>{events.error.message}</ErrorText>
      ) : rows.length === 0 ? (
        <EmptyState title={filtered ? "Aucun événement pour ces filtres" : "Aucun événement"}>
          {filtered
            ? "Élargissez la période ou retirez un filtre."
            : "Les connexions, les clés, les membres, les politiques et les décisions apparaîtront ici."}
        </EmptyState>
      ) : (
        <>
          <Table caption="Journal d’audit">
            <thead>
              <tr>
                <Th>Date</Th>
                <Th>Acteur</Th>
                <Th>Action</Th>
                <Th>Cible</Th>
                <Th>Détails</Th>
              </tr>
            </thead>
            <tbody className="divide-y divide-slate-100">
              {rows.map((event) => (
                <tr key={event.id}>
                  <Td className="whitespace-nowrap text-slate-600">
                    <time dateTime={event.created_at}>{dateTimeFormat.format(new Date(event.created_at))}</time>
                  </Td>
                  <Td>
                    <Actor actor={event.actor} onPick={(actor) => setFilters({ ...filters, actor })} />
                  </Td>
                  <Td>
                    <p className="font-medium">{actionLabel(event.action)}</p>
                    <code className="text-xs text-slate-500">{event.action}</code>
                  </Td>
                  <Td>
                    {event.target ? (
                      <div className="space-y-0.5">
                        <Badge>{targetTypeLabels[event.target.type] ?? event.target.type}</Badge>
                        <button
                          type="button"
                          className="block font-mono text-xs text-slate-600 underline decoration-dotted hover:text-slate-900"
                          title="Filtrer sur cette cible"
                          onClick={() => setFilters({ ...filters, target: event.target!.id })}
                        >
                          {event.target.id}
                        </button>
                      </div>
                    ) : (
                      <span className="text-slate-400">—</span>
                    )}
                  </Td>
                  <Td>
                    <Details details={event.details} />
                  </Td>
                </tr>
              ))}
            </tbody>
          </Table>
          {events.hasNextPage && (
            <Button
              variant="secondary"
              onClick={() => void events.fetchNextPage()}
              disabled={events.isFetchingNextPage}
            >
              {events.isFetchingNextPage ? "Chargement…" : "Charger plus"}
            </Button>
          )}
        </>
      )}
    </div>
  );
}
