import { Badge } from "@/components/ui/badge";
import { Table, Td, Th } from "@/components/ui/table";
import type { PolicyRuleObject } from "@/lib/policies/schemas";
import { decisionLabels, decisionTones, describeApprovers, describeMatch, describeTtl } from "./describe";

/** The ordered rows: the first whose conditions all hold decides. */
export function PolicyTable({ rules, caption }: { rules: PolicyRuleObject[]; caption: string }) {
  return (
    <Table caption={caption}>
      <thead>
        <tr>
          <Th>#</Th>
          <Th>Règle</Th>
          <Th>Si…</Th>
          <Th>Décision</Th>
          <Th>Qui approuve</Th>
          <Th>Délai</Th>
        </tr>
      </thead>
      <tbody className="divide-y divide-slate-100" data-testid="policy-rows">
        {rules.map((rule, index) => (
          <tr key={rule.id}>
            <Td className="text-slate-500 tabular-nums">{index + 1}</Td>
            <Td>
              <p className="font-mono text-xs">{rule.id}</p>
              {rule.description && <p className="mt-1 max-w-sm text-slate-600">{rule.description}</p>}
            </Td>
            <Td>
              <ul className="space-y-0.5">
                {describeMatch(rule.match).map((part) => (
                  <li key={part}>{part}</li>
                ))}
              </ul>
            </Td>
            <Td>
              <Badge tone={decisionTones[rule.decision]}>{decisionLabels[rule.decision]}</Badge>
            </Td>
            <Td className="max-w-xs">{describeApprovers(rule)}</Td>
            <Td className="whitespace-nowrap">
              {rule.decision === "require_approval" ? describeTtl(rule.ttl_seconds) : "—"}
            </Td>
          </tr>
        ))}
      </tbody>
    </Table>
  );
}
