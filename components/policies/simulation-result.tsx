import Link from "next/link";
import { Table, Td, Th } from "@/components/ui/table";
import type { PolicySimulationObject } from "@/lib/policies/schemas";
import { describeDifference } from "./describe";

const dateFormat = new Intl.DateTimeFormat("fr-FR", { dateStyle: "medium", timeStyle: "short" });

/** What a draft would change in the decisions recorded in the window: per tool and kind, with examples. */
export function SimulationResult({ result }: { result: PolicySimulationObject }) {
  const changed = result.tools.filter((tool) => tool.changed > 0);
  return (
    <section aria-labelledby="simulation-title" className="space-y-3" data-testid="simulation-result">
      <h3 id="simulation-title" className="text-base font-semibold">
        Simulation
      </h3>
      <p className="text-sm text-slate-600" data-testid="simulation-summary">
        Depuis le {dateFormat.format(new Date(result.since))} : <strong>{result.evaluated}</strong> décision
        {result.evaluated > 1 ? "s" : ""} d’écriture examinée{result.evaluated > 1 ? "s" : ""},{" "}
        <strong>{result.changed}</strong> changerai{result.changed > 1 ? "ent" : "t"} par rapport à la version{" "}
        {result.live_version} en service. Rien n’est appliqué.
        {result.truncated && " Seules les décisions les plus récentes ont été lues."}
      </p>
      {changed.length > 0 && (
        <Table caption="Décisions qui changeraient, par outil">
          <thead>
            <tr>
              <Th>Outil</Th>
              <Th>Examinées</Th>
              <Th>Changement</Th>
              <Th>Nombre</Th>
              <Th>Exemples</Th>
            </tr>
          </thead>
          <tbody className="divide-y divide-slate-100" data-testid="simulation-rows">
            {changed.flatMap((tool) =>
              tool.changes.map((change, index) => (
                <tr key={`${tool.tool}-${change.kind}`}>
                  <Td className="font-mono text-xs">{index === 0 ? tool.tool : ""}</Td>
                  <Td className="tabular-nums">{index === 0 ? tool.evaluated : ""}</Td>
                  <Td>{describeDifference(change.kind)}</Td>
                  <Td className="tabular-nums">{change.count}</Td>
                  <Td>
                    <ul className="space-y-0.5 text-xs">
                      {change.examples.map((example) => (
                        <li key={`${example.step ?? ""}-${example.decided_at}-${example.proposal ?? ""}`}>
                          <span className="font-mono">{example.step ?? "révision"}</span>
                          {example.proposal && (
                            <>
                              {" · "}
                              <Link href={`/approbations/${example.proposal}`} className="text-brand-700 underline">
                                proposition
                              </Link>
                            </>
                          )}
                        </li>
                      ))}
                    </ul>
                  </Td>
                </tr>
              )),
            )}
          </tbody>
        </Table>
      )}
    </section>
  );
}
