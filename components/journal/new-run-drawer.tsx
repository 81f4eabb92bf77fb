"use client";

import { useMutation, useQueryClient } from "@tanstack/react-query";
import { useState, type FormEvent } from "react";
import { toast } from "sonner";
import { Button } from "@/components/ui/button";
import { Drawer } from "@/components/ui/drawer";
import { Field, TextArea } from "@/components/ui/field";
import { ApiClientError } from "@/lib/client/errors";
import { createRun, runKeys } from "./queries";
import { ErrorText } from "@/components/ui/error-text";

// Start a run from the console: same POST /v1/runs as the API, same refusals.

export function NewRunDrawer({
  agents,
  onClose,
  onCreated,
}: {
  agents: { id: string; name: string; active: boolean }[];
  onClose: () => void;
  onCreated: (id: string) => void;
}) {
  const queryClient = useQueryClient();
  const [error, setError] = useState<ApiClientError>();
  const create = useMutation({
    mutationFn: createRun,
    onSuccess: ({ data, warnings }) => {
      for (const warning of warnings) toast.warning(`${warning.tool} : ${warning.reason.message}`);
      toast.success("Run démarré.");
      void queryClient.invalidateQueries({ queryKey: runKeys.all });
      onCreated(data.id);
    },
    onError: (e) => setError(e instanceof ApiClientError ? e : undefined),
  });

  function submit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    const form = new FormData(event.currentTarget);
    const instructions = String(form.get("instructions") ?? "").trim();
    create.mutate({
      agent: String(form.get("agent") ?? ""),
      capabilities: form.get("capabilities") === "read_write" ? ("read_write" as const) : ("read" as const),
      debug: form.get("debug") === "on",
      ...(instructions ? { instructions } : {}),
    });
  }

  return (
    <Drawer
      open
      onOpenChange={(open) => !open && onClose()}
      title="Nouveau run"
      description="Le jeu d’outils du run est figé à sa création."
    >
      <form onSubmit={submit} className="space-y-4" noValidate>
        <Field
          label="Agent"
          error={
            error?.fieldMessage("agent") ??
            (error?.code === "agent_inactive" || error?.code === "not_found" ? error.message : undefined)
          }
        >
          {({ id, describedBy, invalid }) => (
            <select
              id={id}
              name="agent"
              aria-describedby={describedBy}
              aria-invalid={invalid || undefined}
              className="block w-full rounded-md border border-slate-300 px-3 py-2 text-sm"
              required
            >
              {agents.map((agent) => (
                <option key={agent.id} value={agent.id}>
                  {agent.name}
                  {agent.active ? "" : " (inactif)"}
                </option>
              ))}
            </select>
          )}
        </Field>
        <fieldset>
          <legend className="text-sm font-medium text-slate-800">Capacités</legend>
          <label className="mt-1 flex items-center gap-2 text-sm">
            <input type="radio" name="capabilities" value="read" defaultChecked /> Lecture seule
          </label>
          <label className="flex items-center gap-2 text-sm">
            <input type="radio" name="capabilities" value="read_write" /> Lecture et écriture (chaque écriture passe par
            une proposition)
          </label>
        </fieldset>
        <Field
          label="Instructions du run (ajoutées après celles de l’agent)"
          error={error?.fieldMessage("instructions")}
        >
          {({ id, describedBy, invalid }) => (
            <TextArea
              id={id}
              name="instructions"
              rows={3}
              maxLength={20_000}
              aria-describedby={describedBy}
              invalid={invalid}
            />
          )}
        </Field>
        <label className="flex items-start gap-2 text-sm">
          <input type="checkbox" name="debug" className="mt-1" />
          <span>
            Mode débogage : conserver sur chaque étape les arguments (masqués) et le résultat filtré par la vue de
            résultat.
          </span>
        </label>
        {error && !error.errors.length && error.code !== "agent_inactive" && error.code !== "not_found" && (
          <ErrorText>{error.message}</ErrorText>
        )}
        <div className="flex justify-end gap-2">
          <Button variant="ghost" onClick={onClose}>
            Annuler
          </Button>
          <Button type="submit" disabled={create.isPending || agents.length === 0}>
            {create.isPending ? "Démarrage…" : "Démarrer le run"}
          </Button>
        </div>
      </form>
    </Drawer>
  );
}
