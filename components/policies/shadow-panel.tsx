"use client";

import { useMutation, useQueryClient } from "@tanstack/react-query";
import Link from "next/link";
import { toast } from "sonner";
import { Button } from "@/components/ui/button";
import { ErrorText } from "@/components/ui/error-text";
import { Table, Td, Th } from "@/components/ui/table";
import { PolicyTable } from "./policy-table";
import { describeDifference } from "./describe";
import { dropShadow, policyKeys, promoteShadow, useShadowDifferences, useShadowPolicy } from "./queries";

const dateFormat = new Intl.DateTimeFormat("fr-FR", { dateStyle: "medium", timeStyle: "short" });

/**
 * The table in shadow mode, when there is one: evaluated beside the live table on every write,
 * enforcing nothing. Shows the decisions it would have taken otherwise; owners and admins promote it
 * (a new live version) or drop it.
 */
export function ShadowPanel({ canEdit, liveVersion }: { canEdit: boolean; liveVersion: number }) {
  const client = useQueryClient();
  const shadow = useShadowPolicy();
  const differences = useShadowDifferences(Boolean(shadow.data));
  const refresh = () => void client.invalidateQueries({ queryKey: policyKeys.all });
  const promote = useMutation({
    mutationFn: () => promoteShadow(liveVersion),
    onSuccess: ({ data }) => {
      toast.success(`Table fantôme mise en service : version ${data.version}.`);
      refresh();
    },
    onError: (error) => toast.error(error.message),
  });
  const drop = useMutation({
    mutationFn: dropShadow,
    onSuccess: () => {
      toast.success("Table fantôme abandonnée.");
      refresh();
    },
    onError: (error) => toast.error(error.message),
  });
  if (shadow.isError) return <ErrorText>{shadow.error.message}</ErrorText>;
  if (!shadow.data) return null;
  const table = shadow.data;
  const counts = differences.data?.counts ?? [];
  return (
    <section aria-labelledby="shadow-title" className="space-y-3 rounded-md border border-amber-200 p-4">
      <h2 id="shadow-title" className="text-lg font-semibold">
        Table en mode fantôme
      </h2>
      <p className="text-sm text-slate-600">
        Publiée le {dateFormat.format(new Date(table.created_at))} à partir de la version {table.base_version}. Elle est
        évaluée à chaque écriture à côté de la table en service, sans rien décider.
      </p>
      {canEdit && (
        <div className="flex flex-wrap gap-2">
          <Button onClick={() => promote.mutate()} disabled={promote.isPending}>
            Mettre en service (version {liveVersion + 1})
          </Button>
          <Button variant="ghost" onClick={() => drop.mutate()} disabled={drop.isPending}>
            Abandonner
          </Button>
        </div>
      )}
      <h3 className="text-base font-semibold">Décisions qui auraient différé</h3>
      {counts.length === 0 ? (
        <p className="text-sm text-slate-500" data-testid="shadow-no-difference">
          Aucune pour l’instant.
        </p>
      ) : (
        <Table caption="Décisions qui auraient différé, par outil et par changement">
          <thead>
            <tr>
              <Th>Outil</Th>
              <Th>Changement</Th>
              <Th>Nombre</Th>
            </tr>
          </thead>
          <tbody className="divide-y divide-slate-100" data-testid="shadow-counts">
            {counts.map((count) => (
              <tr key={`${count.tool}-${count.kind}`}>
                <Td className="font-mono text-xs">{count.tool}</Td>
                <Td>{describeDifference(count.kind)}</Td>
                <Td className="tabular-nums">{count.count}</Td>
              </tr>
            ))}
          </tbody>
        </Table>
      )}
      {(differences.data?.data.length ?? 0) > 0 && (
        <ul className="space-y-1 text-sm" data-testid="shadow-differences">
          {differences.data!.data.map((difference) => (
            <li key={difference.id}>
              {dateFormat.format(new Date(difference.created_at))} ·{" "}
              <span className="font-mono text-xs">{difference.tool}</span> · {describeDifference(difference.kind)}{" "}
              (règle {difference.live.rule} → {difference.shadow.rule})
              {difference.proposal && (
                <>
                  {" · "}
                  <Link href={`/approbations/${difference.proposal}`} className="text-brand-700 underline">
                    proposition
                  </Link>
                </>
              )}
            </li>
          ))}
        </ul>
      )}
      <details>
        <summary className="cursor-pointer text-sm text-brand-700">Voir les lignes de la table fantôme</summary>
        <PolicyTable rules={table.rules} caption="Table de politique en mode fantôme" />
      </details>
    </section>
  );
}
