import { Table, Td, Th } from "@/components/ui/table";
import type { ProposalObject } from "@/lib/proposals/schemas";
import { formatValue } from "./format";

type Change = Pick<ProposalObject["changes"][number], "field" | "before" | "after"> & { label?: string | null };

/**
 * Before and after, field by field, exactly as the stored proposal holds them; the service's name for each
 * field, its raw key on hover. The same table shows the arguments a person revised (one JSON Pointer per line).
 */
export function ChangesTable({
  changes,
  caption = "Champs modifiés : avant et après",
  heading = "Champ",
}: {
  changes: Change[];
  caption?: string;
  heading?: string;
}) {
  if (changes.length === 0) return <p className="text-sm text-slate-500">Aucun champ modifié n’est décrit.</p>;
  return (
    <Table caption={caption} stacked>
      <thead>
        <tr>
          <Th>{heading}</Th>
          <Th>Avant</Th>
          <Th>Après</Th>
        </tr>
      </thead>
      <tbody className="divide-y divide-slate-100">
        {changes.map((change) => (
          <tr key={change.field}>
            <Td>
              {change.label ? (
                <span
                  title={change.field}
                  className="cursor-help underline decoration-slate-400 decoration-dotted underline-offset-2"
                >
                  {change.label}
                </span>
              ) : (
                <span className="font-mono text-xs">{change.field}</span>
              )}
            </Td>
            <Td className="text-slate-600" label="Avant">
              {change.before === null || change.before === undefined ? (
                <span aria-label="aucune valeur">—</span>
              ) : (
                <del className="decoration-red-400">{formatValue(change.before)}</del>
              )}
            </Td>
            <Td className="font-medium" label="Après">
              {change.after === null || change.after === undefined ? (
                <span aria-label="aucune valeur">—</span>
              ) : (
                <ins className="no-underline">{formatValue(change.after)}</ins>
              )}
            </Td>
          </tr>
        ))}
      </tbody>
    </Table>
  );
}
