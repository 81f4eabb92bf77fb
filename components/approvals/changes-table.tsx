import { Table, Td, Th } from "@/components/ui/table";
import type { ProposalObject } from "@/lib/proposals/schemas";
import { formatValue } from "./format";

/** Before and after, field by field, exactly as the stored proposal holds them; the service's name for each field, its raw key on hover. */
export function ChangesTable({ changes }: { changes: ProposalObject["changes"] }) {
  if (changes.length === 0) return <p className="text-sm text-slate-500">Aucun champ modifié n’est décrit.</p>;
  return (
    <Table caption="Champs modifiés : avant et après" stacked>
      <thead>
        <tr>
          <Th>Champ</Th>
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
              <ins className="no-underline">{formatValue(change.after)}</ins>
            </Td>
          </tr>
        ))}
      </tbody>
    </Table>
  );
}
