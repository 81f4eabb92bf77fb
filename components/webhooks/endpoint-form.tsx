"use client";

import { useMutation, useQueryClient } from "@tanstack/react-query";
import { useState, type FormEvent } from "react";
import { urlRefusalLabels } from "@/components/mcp/labels";
import { Button } from "@/components/ui/button";
import { TextField } from "@/components/ui/field";
import { ApiClientError } from "@/lib/client/errors";
import { eventTypeLabels, webhookEventTypes, type WebhookEventType } from "@/lib/webhooks/schemas";
import { createWebhookEndpoint, webhookKeys } from "./queries";
import { ErrorText } from "@/components/ui/error-text";

/** A new endpoint: its URL and the events it receives. The secret comes back once, to `onCreated`. */
export function EndpointForm({ onCreated }: { onCreated: (created: { url: string; secret: string }) => void }) {
  const queryClient = useQueryClient();
  const [error, setError] = useState<ApiClientError>();
  const create = useMutation({
    mutationFn: createWebhookEndpoint,
    onSuccess: (data) => {
      setError(undefined);
      onCreated({ url: data.url, secret: data.secret });
      void queryClient.invalidateQueries({ queryKey: webhookKeys.endpoints() });
    },
    onError: (e) => setError(e instanceof ApiClientError ? e : undefined),
  });

  // The network policy's refusal says why in French; a malformed URL keeps the field's own message.
  const urlRefusal = error?.code === "url_not_allowed" ? error.errors.find((e) => e.field === "url")?.code : undefined;
  const urlError = urlRefusal
    ? (urlRefusalLabels[urlRefusal] ?? "Cette adresse n’est pas autorisée.")
    : error?.fieldMessage("url") && "Saisissez une adresse http(s) complète, par exemple https://exemple.fr/webhooks.";

  function onSubmit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    const form = new FormData(event.currentTarget);
    const description = String(form.get("description") ?? "").trim();
    create.mutate({
      url: String(form.get("url") ?? ""),
      events: form.getAll("events").map(String) as WebhookEventType[],
      ...(description && { description }),
    });
  }

  return (
    <form onSubmit={onSubmit} className="mt-4 space-y-4" noValidate aria-label="Nouveau webhook">
      <TextField
        label="URL de réception"
        error={urlError || undefined}
        hint="Une adresse publique en https de préférence. Les adresses internes et de métadonnées sont refusées."
        name="url"
        type="url"
        placeholder="https://exemple.fr/webhooks/guichet"
      />
      <TextField
        label="Description (facultative)"
        error={error?.fieldMessage("description")}
        name="description"
        maxLength={200}
        placeholder="Alertes de l’équipe support"
      />
      <fieldset>
        <legend className="text-sm font-medium text-slate-800">Événements</legend>
        <div className="mt-2 space-y-1">
          {webhookEventTypes.map((type) => (
            <label key={type} className="flex items-center gap-2 text-sm">
              <input type="checkbox" name="events" value={type} defaultChecked={type.startsWith("proposal.")} />
              {eventTypeLabels[type]} <code className="text-xs text-slate-500">{type}</code>
            </label>
          ))}
        </div>
        {error?.fieldMessage("events") && (
          <ErrorText small className="mt-1">
            Choisissez au moins un événement.
          </ErrorText>
        )}
      </fieldset>
      {error && !error.errors.length && <ErrorText>{error.message}</ErrorText>}
      <Button type="submit" disabled={create.isPending}>
        {create.isPending ? "Création…" : "Créer le webhook"}
      </Button>
    </form>
  );
}
