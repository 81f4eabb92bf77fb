"use client";

import { useMutation, useQueryClient } from "@tanstack/react-query";
import { useState, type FormEvent } from "react";
import { useAgents } from "@/components/agents/queries";
import { Button } from "@/components/ui/button";
import { ErrorText } from "@/components/ui/error-text";
import { Field, TextField } from "@/components/ui/field";
import { ApiClientError } from "@/lib/client/errors";
import { MAX_ALLOWED_ORIGINS } from "@/lib/widgets/schemas";
import { createWidget, widgetKeys } from "./queries";

const select = "block w-full rounded-md border px-3 py-2 text-sm shadow-sm";

/** A new widget: its agent, name, origins, identity and capabilities. The signing secret comes back once. */
export function WidgetForm({ onCreated }: { onCreated: (created: { name: string; secret: string }) => void }) {
  const queryClient = useQueryClient();
  const agents = useAgents();
  const [error, setError] = useState<ApiClientError>();
  const create = useMutation({
    mutationFn: createWidget,
    onSuccess: (data) => {
      setError(undefined);
      onCreated({ name: data.name, secret: data.signing_secret });
      void queryClient.invalidateQueries({ queryKey: widgetKeys.list() });
    },
    onError: (e) => setError(e instanceof ApiClientError ? e : undefined),
  });
  // The refused origin's own message names it ("https://x/path": no path…).
  const originError = error?.errors.find((e) => e.field.startsWith("allowed_origins"));

  function onSubmit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    const form = new FormData(event.currentTarget);
    create.mutate({
      agent: String(form.get("agent") ?? ""),
      name: String(form.get("name") ?? ""),
      allowed_origins: String(form.get("origins") ?? "")
        .split(/\s+/)
        .filter(Boolean),
      identity: form.get("identity") === "verified" ? "verified" : "anonymous",
      capabilities: form.get("capabilities") === "read_write" ? "read_write" : "read",
    } as Parameters<typeof createWidget>[0]);
  }

  return (
    <form onSubmit={onSubmit} className="mt-4 space-y-4" noValidate aria-label="Nouveau widget">
      <Field label="Agent" error={error?.fieldMessage("agent")}>
        {({ id, describedBy }) => (
          <select id={id} name="agent" aria-describedby={describedBy} className={select}>
            {(agents.data ?? []).map((agent) => (
              <option key={agent.id} value={agent.id}>
                {agent.name}
              </option>
            ))}
          </select>
        )}
      </Field>
      <TextField
        label="Nom"
        name="name"
        maxLength={100}
        placeholder="Boutique en ligne"
        error={error?.fieldMessage("name")}
      />
      <Field
        label="Origines autorisées"
        error={originError ? `Origine refusée : ${originError.message}` : undefined}
        hint={`Une origine exacte par ligne (${MAX_ALLOWED_ORIGINS} au plus) : https:// uniquement, http://localhost pour le développement ; ni joker ni chemin.`}
      >
        {({ id, describedBy, invalid }) => (
          <textarea
            id={id}
            name="origins"
            rows={3}
            aria-describedby={describedBy}
            aria-invalid={invalid}
            className={select}
            placeholder="https://boutique.exemple.fr"
          />
        )}
      </Field>
      <div className="grid gap-4 sm:grid-cols-2">
        <Field label="Visiteurs">
          {({ id }) => (
            <select id={id} name="identity" className={select}>
              <option value="anonymous">Anonymes</option>
              <option value="verified">Vérifiés (jeton signé par votre serveur)</option>
            </select>
          )}
        </Field>
        <Field label="Capacités">
          {({ id }) => (
            <select id={id} name="capabilities" className={select}>
              <option value="read">Lecture seule</option>
              <option value="read_write">Lecture et écriture (chaque écriture attend une approbation)</option>
            </select>
          )}
        </Field>
      </div>
      {error && !error.errors.length && <ErrorText>{error.message}</ErrorText>}
      <Button type="submit" disabled={create.isPending}>
        {create.isPending ? "Création…" : "Créer le widget"}
      </Button>
    </form>
  );
}
