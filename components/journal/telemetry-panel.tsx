"use client";

import { Bar, BarChart, CartesianGrid, Legend, ResponsiveContainer, Tooltip, XAxis, YAxis } from "recharts";
import { Table, Td, Th } from "@/components/ui/table";
import { useTelemetry } from "./queries";
import { ErrorText } from "@/components/ui/error-text";
import { Card } from "@/components/ui/card";

// Télémétrie: counters only (tool@version, code, field), never payloads.

const hourFormat = new Intl.DateTimeFormat("fr-FR", { hour: "2-digit", minute: "2-digit" });

function Kpi({ label, value }: { label: string; value: number }) {
  return (
    <Card padding="none" className="px-4 py-3">
      <p className="text-xs text-slate-500">{label}</p>
      <p className="text-xl font-semibold tabular-nums">{value.toLocaleString("fr-FR")}</p>
    </Card>
  );
}

export function TelemetryPanel() {
  const telemetry = useTelemetry(24);
  if (telemetry.isPending) return <p className="text-sm text-slate-500">Chargement de la télémétrie…</p>;
  if (telemetry.isError) return <ErrorText>{telemetry.error.message}</ErrorText>;
  const data = telemetry.data;
  const series = data.series.map((p) => ({
    heure: hourFormat.format(new Date(p.bucket)),
    succès: p.calls - p.errors,
    erreurs: p.errors,
  }));
  return (
    <section aria-labelledby="telemetry-title" className="space-y-4">
      <h2 id="telemetry-title" className="text-lg font-semibold">
        Télémétrie des dernières 24 heures
      </h2>
      <div className="grid grid-cols-2 gap-3 md:grid-cols-5">
        <Kpi label="Appels" value={data.totals.calls} />
        <Kpi label="Erreurs" value={data.totals.errors} />
        <Kpi label="Arguments refusés" value={data.totals.validation_errors} />
        <Kpi label="Reprises" value={data.totals.retries} />
        <Kpi label="Sorties invalides" value={data.totals.output_errors} />
      </div>
      <div className="grid gap-4 lg:grid-cols-2">
        <Card as="figure" padding="sm" data-testid="telemetry-calls-chart">
          <figcaption className="mb-2 text-sm font-medium">Appels par heure</figcaption>
          <div
            style={{ height: 220 }}
            role="img"
            aria-label={`Appels par heure : ${data.totals.calls} appels, ${data.totals.errors} erreurs`}
          >
            <ResponsiveContainer width="100%" height="100%">
              <BarChart data={series}>
                <CartesianGrid strokeDasharray="3 3" stroke="#e2e8f0" />
                <XAxis dataKey="heure" tick={{ fontSize: 11 }} interval={3} />
                <YAxis allowDecimals={false} tick={{ fontSize: 11 }} />
                <Tooltip />
                <Legend />
                <Bar dataKey="succès" stackId="a" fill="#0f9d76" />
                <Bar dataKey="erreurs" stackId="a" fill="#c2410c" />
              </BarChart>
            </ResponsiveContainer>
          </div>
        </Card>
        <Card as="figure" padding="sm">
          <figcaption className="mb-2 text-sm font-medium">Erreurs par code</figcaption>
          {data.errors_by_code.length === 0 ? (
            <p className="text-sm text-slate-500">Aucune erreur sur la période.</p>
          ) : (
            <div
              style={{ height: 220 }}
              role="img"
              aria-label={`Erreurs par code : ${data.errors_by_code.map((e) => `${e.code} ${e.count}`).join(", ")}`}
            >
              <ResponsiveContainer width="100%" height="100%">
                <BarChart data={data.errors_by_code} layout="vertical" margin={{ left: 60 }}>
                  <CartesianGrid strokeDasharray="3 3" stroke="#e2e8f0" />
                  <XAxis type="number" allowDecimals={false} tick={{ fontSize: 11 }} />
                  <YAxis type="category" dataKey="code" tick={{ fontSize: 11 }} width={150} />
                  <Tooltip />
                  <Bar dataKey="count" name="erreurs" fill="#c2410c" maxBarSize={28} />
                </BarChart>
              </ResponsiveContainer>
            </div>
          )}
        </Card>
      </div>
      {data.calls.length > 0 && (
        <Table caption="Appels par outil et version">
          <thead>
            <tr>
              <Th>Outil</Th>
              <Th className="text-right">Appels</Th>
              <Th className="text-right">Erreurs</Th>
            </tr>
          </thead>
          <tbody className="divide-y divide-slate-100">
            {data.calls.map((c) => (
              <tr key={`${c.tool}@${c.version}`}>
                <Td>
                  <code className="text-xs">{c.tool ? `${c.tool}@${c.version}` : "(nom inconnu)"}</code>
                </Td>
                <Td className="text-right tabular-nums">{c.calls}</Td>
                <Td className="text-right tabular-nums">{c.errors}</Td>
              </tr>
            ))}
          </tbody>
        </Table>
      )}
      {data.validation_errors.length > 0 && (
        <Table caption="Arguments refusés par code et champ">
          <thead>
            <tr>
              <Th>Outil</Th>
              <Th>Code</Th>
              <Th>Champ</Th>
              <Th className="text-right">Nombre</Th>
            </tr>
          </thead>
          <tbody className="divide-y divide-slate-100">
            {data.validation_errors.slice(0, 20).map((v) => (
              <tr key={`${v.tool}@${v.version}|${v.code}|${v.field}`}>
                <Td>
                  <code className="text-xs">{v.tool ? `${v.tool}@${v.version}` : "—"}</code>
                </Td>
                <Td>
                  <code className="text-xs">{v.code}</code>
                </Td>
                <Td>
                  <code className="text-xs">{v.field || "—"}</code>
                </Td>
                <Td className="text-right tabular-nums">{v.count}</Td>
              </tr>
            ))}
          </tbody>
        </Table>
      )}
    </section>
  );
}
