"use client";

import { useMutation, useQueryClient } from "@tanstack/react-query";
import { toast } from "sonner";
import { Badge } from "@/components/ui/badge";
import { ConfirmButton } from "@/components/ui/confirm-button";
import { Drawer } from "@/components/ui/drawer";
import { Table, Td, Th } from "@/components/ui/table";
import { ChartView, isChartData } from "./chart-view";
import { capabilityLabels, dateTime, deletedAgentLabel, runStatusLabels } from "./labels";
import { cancelRun, runKeys, telemetryKeys, useRun, useSteps } from "./queries";
import { RunTranscript } from "./run-transcript";
import { ToolCallForm } from "./tool-call-form";
import { ErrorText } from "@/components/ui/error-text";

// One run: its frozen tools, what was left out, its steps (without payloads,
// unless the run keeps debug payloads), and a form to call one of its tools —
// unless its agent was deleted: the run is kept as a record and calls nothing more.
// Only the person who opened a run calls its tools here: a run is driven by its
// opener alone (another key's or person's call is refused as run_not_yours).

export function RunDrawer({
  runId,
  agentName,
  canWrite,
  memberId,
  onClose,
}: {
  runId: string;
  agentName: (id: string | null) => string;
  canWrite: boolean;
  /** The signed-in member. */
  memberId: string;
  onClose: () => void;
}) {
  const queryClient = useQueryClient();
  const run = useRun(runId);
  const steps = useSteps(runId);
  const cancel = useMutation({
    mutationFn: () => cancelRun(runId),
    onSuccess: () => {
      toast.success("Run annulé : il n’accepte plus d’appel.");
      void queryClient.invalidateQueries({ queryKey: runKeys.all });
    },
    onError: (e) => toast.error(e.message),
  });
  const refresh = () => {
    void queryClient.invalidateQueries({ queryKey: runKeys.steps(runId) });
    void queryClient.invalidateQueries({ queryKey: telemetryKeys.all });
  };
  const data = run.data;
  const status = data ? (runStatusLabels[data.status] ?? { label: data.status, tone: "neutral" as const }) : null;

  return (
    <Drawer
      open
      onOpenChange={(open) => !open && onClose()}
      title={`Run ${runId}`}
      description={
        data
          ? data.agent === null
            ? `${deletedAgentLabel} : le run et ses étapes sont conservés, il n’accepte plus d’appel d’outil.`
            : `Agent ${agentName(data.agent)}`
          : undefined
      }
    >
      {!data ? (
        <p className="text-sm text-slate-500">{run.isError ? run.error.message : "Chargement…"}</p>
      ) : (
        <div className="space-y-6">
          <dl className="grid grid-cols-2 gap-x-4 gap-y-2 text-sm">
            <dt className="text-slate-500">Statut</dt>
            <dd>{status && <Badge tone={status.tone}>{status.label}</Badge>}</dd>
            <dt className="text-slate-500">Capacités</dt>
            <dd>{capabilityLabels[data.capabilities]}</dd>
            <dt className="text-slate-500">Expire</dt>
            <dd>{dateTime.format(new Date(data.expires_at))}</dd>
            <dt className="text-slate-500">Débogage</dt>
            <dd>
              {data.debug
                ? "Oui : arguments masqués et résultats filtrés conservés"
                : "Non : ni arguments ni résultats conservés"}
            </dd>
          </dl>
          <section aria-labelledby="capabilities-title">
            <h3 id="capabilities-title" className="text-sm font-semibold">
              Outils du run (figés)
            </h3>
            <ul className="mt-2 flex flex-wrap gap-1">
              {data.capability_set.map((c) => (
                <li key={c.tool}>
                  <Badge tone={c.effect === "write" ? "warning" : "neutral"}>{`${c.tool}@${c.version}`}</Badge>
                </li>
              ))}
            </ul>
            {data.warnings.length > 0 && (
              <ul className="mt-2 space-y-1 text-xs text-amber-800">
                {data.warnings.map((w) => (
                  <li key={w.tool}>
                    <code>{w.tool}</code> écarté : {w.reason.message}
                  </li>
                ))}
              </ul>
            )}
          </section>
          <RunTranscript run={data} />
          {canWrite && data.status === "active" && data.agent !== null && !data.managed && (
            <section aria-labelledby="call-title" className="rounded-lg border border-slate-200 p-4">
              <h3 id="call-title" className="text-sm font-semibold">
                Appeler un outil
              </h3>
              {data.opened_by.member === memberId ? (
                <ToolCallForm runId={runId} tools={data.capability_set.map((c) => c.tool)} onCalled={refresh} />
              ) : (
                <p className="mt-2 text-sm text-slate-500">
                  {data.opened_by.api_key
                    ? "Ce run a été ouvert avec une clé d’API : seule cette clé peut appeler ses outils."
                    : "Ce run a été ouvert par une autre personne : seule elle peut appeler ses outils."}
                </p>
              )}
            </section>
          )}
          <section aria-labelledby="steps-title">
            <h3 id="steps-title" className="text-sm font-semibold">
              Étapes
            </h3>
            {steps.isPending ? (
              <p className="text-sm text-slate-500">Chargement…</p>
            ) : steps.isError ? (
              <ErrorText>{steps.error.message}</ErrorText>
            ) : steps.data.length === 0 ? (
              <p className="mt-2 text-sm text-slate-500">Aucun appel d’outil pour l’instant.</p>
            ) : (
              <div className="mt-2 space-y-3">
                <Table caption="Étapes du run">
                  <thead>
                    <tr>
                      <Th>Heure</Th>
                      <Th>Outil</Th>
                      <Th>Résultat</Th>
                      <Th className="text-right">Durée</Th>
                      <Th>Empreinte des arguments</Th>
                    </tr>
                  </thead>
                  <tbody className="divide-y divide-slate-100">
                    {[...steps.data].reverse().map((step) => (
                      <tr key={step.id} data-testid="step-row">
                        <Td className="text-xs whitespace-nowrap text-slate-600">
                          {dateTime.format(new Date(step.created_at))}
                        </Td>
                        <Td>
                          <code className="text-xs">{step.version ? `${step.tool}@${step.version}` : step.tool}</code>
                        </Td>
                        <Td>
                          {step.status === "ok" ? (
                            <Badge tone="success">OK</Badge>
                          ) : (
                            <Badge tone="danger">{step.error_code ?? "erreur"}</Badge>
                          )}
                          {step.error_field && <code className="ml-1 text-xs">{step.error_field}</code>}
                          {step.retries > 0 && (
                            <span className="ml-1 text-xs text-slate-500">
                              {step.retries} reprise{step.retries > 1 ? "s" : ""}
                            </span>
                          )}
                        </Td>
                        <Td className="text-right text-xs tabular-nums">{step.duration_ms} ms</Td>
                        <Td>
                          <code className="text-xs" title={step.arguments_sha256}>
                            {step.arguments_sha256.slice(0, 8)}…
                          </code>
                        </Td>
                      </tr>
                    ))}
                  </tbody>
                </Table>
                {steps.data
                  .filter(
                    (s) =>
                      s.tool === "create_chart" && isChartData((s.debug?.result as { chart?: unknown } | null)?.chart),
                  )
                  .map((s) => (
                    <ChartView
                      key={s.id}
                      chart={(s.debug!.result as { chart: Parameters<typeof ChartView>[0]["chart"] }).chart}
                    />
                  ))}
              </div>
            )}
          </section>
          {canWrite &&
            (data.status === "active" ||
              data.status === "requires_action" ||
              data.status === "requires_approval" ||
              data.status === "suspended") && (
              <div className="flex justify-end">
                <ConfirmButton
                  variant="danger"
                  disabled={cancel.isPending}
                  question="Annuler ce run ?"
                  detail="Il n’acceptera plus aucun appel d’outil."
                  confirmLabel="Annuler le run"
                  onConfirm={() => cancel.mutate()}
                >
                  Annuler le run
                </ConfirmButton>
              </div>
            )}
        </div>
      )}
    </Drawer>
  );
}
