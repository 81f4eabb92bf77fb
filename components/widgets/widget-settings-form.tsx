"use client";

import { useMutation, useQueryClient } from "@tanstack/react-query";
import { useState, type FormEvent } from "react";
import { toast } from "sonner";
import { Button } from "@/components/ui/button";
import { ErrorText } from "@/components/ui/error-text";
import { Field, TextField } from "@/components/ui/field";
import { ApiClientError } from "@/lib/client/errors";
import { MAX_STARTER_PROMPTS, type WidgetObject } from "@/lib/widgets/schemas";
import { storeWidget, updateWidget } from "./queries";

const select = "block w-full rounded-md border px-3 py-2 text-sm shadow-sm";

/** A number field's value as sent: empty stays unset, anything else goes as typed for the API to judge. */
function numberOf(form: FormData, name: string): number | undefined {
  const raw = String(form.get(name) ?? "").trim();
  return raw === "" ? undefined : Number(raw);
}

/**
 * The bubble's appearance and limits, edited through the same PATCH as any
 * client: the API judges every value and each refusal is shown under its field.
 */
export function WidgetSettingsForm({ widget, onSaved }: { widget: WidgetObject; onSaved: () => void }) {
  const queryClient = useQueryClient();
  const [error, setError] = useState<ApiClientError>();
  const save = useMutation({
    mutationFn: (body: Parameters<typeof updateWidget>[1]) => updateWidget(widget.id, body),
    onSuccess: (saved) => {
      setError(undefined);
      toast.success("Widget enregistré.");
      storeWidget(queryClient, saved);
      onSaved();
    },
    onError: (e) => (e instanceof ApiClientError ? setError(e) : toast.error(e.message)),
  });
  const fieldError = (field: string) => error?.fieldMessage(field);
  const { appearance, limits } = widget;

  function onSubmit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    const form = new FormData(event.currentTarget);
    save.mutate({
      appearance: {
        title: String(form.get("title") ?? ""),
        greeting: String(form.get("greeting") ?? ""),
        starter_prompts: String(form.get("starter_prompts") ?? "")
          .split("\n")
          .map((line) => line.trim())
          .filter(Boolean),
        accent_color: String(form.get("accent_color") ?? "").trim(),
        position: form.get("position") === "left" ? "left" : "right",
        language: form.get("language") === "en" ? "en" : "fr",
      },
      limits: {
        messages_per_visitor_per_hour: numberOf(form, "messages_per_visitor_per_hour"),
        conversations_per_day: numberOf(form, "conversations_per_day"),
        messages_per_conversation: numberOf(form, "messages_per_conversation"),
      },
    } as Parameters<typeof updateWidget>[1]);
  }

  return (
    <form onSubmit={onSubmit} className="space-y-4" noValidate aria-label={`Apparence et limites de ${widget.name}`}>
      <div className="grid gap-4 sm:grid-cols-2">
        <TextField
          label="Titre"
          name="title"
          maxLength={60}
          defaultValue={appearance.title}
          error={fieldError("appearance.title")}
        />
        <TextField
          label="Couleur d’accent"
          name="accent_color"
          defaultValue={appearance.accent_color}
          hint="Au format #rrggbb, par exemple #1d4ed8."
          error={fieldError("appearance.accent_color")}
        />
      </div>
      <TextField
        label="Message d’accueil"
        name="greeting"
        maxLength={500}
        defaultValue={appearance.greeting}
        error={fieldError("appearance.greeting")}
      />
      <Field
        label="Suggestions de départ"
        hint={`Une par ligne, ${MAX_STARTER_PROMPTS} au plus.`}
        error={fieldError("appearance.starter_prompts")}
      >
        {({ id, describedBy, invalid }) => (
          <textarea
            id={id}
            name="starter_prompts"
            rows={3}
            aria-describedby={describedBy}
            aria-invalid={invalid}
            className={select}
            defaultValue={appearance.starter_prompts.join("\n")}
          />
        )}
      </Field>
      <div className="grid gap-4 sm:grid-cols-2">
        <Field label="Position" error={fieldError("appearance.position")}>
          {({ id, describedBy }) => (
            <select
              id={id}
              name="position"
              aria-describedby={describedBy}
              className={select}
              defaultValue={appearance.position}
            >
              <option value="right">En bas à droite</option>
              <option value="left">En bas à gauche</option>
            </select>
          )}
        </Field>
        <Field label="Langue" error={fieldError("appearance.language")}>
          {({ id, describedBy }) => (
            <select
              id={id}
              name="language"
              aria-describedby={describedBy}
              className={select}
              defaultValue={appearance.language}
            >
              <option value="fr">Français</option>
              <option value="en">Anglais</option>
            </select>
          )}
        </Field>
      </div>
      <fieldset className="grid gap-4 sm:grid-cols-3">
        <legend className="mb-2 text-sm font-medium text-slate-800">Limites</legend>
        <TextField
          label="Messages par visiteur et par heure"
          name="messages_per_visitor_per_hour"
          inputMode="numeric"
          defaultValue={String(limits.messages_per_visitor_per_hour)}
          error={fieldError("limits.messages_per_visitor_per_hour")}
        />
        <TextField
          label="Conversations par jour"
          name="conversations_per_day"
          inputMode="numeric"
          defaultValue={String(limits.conversations_per_day)}
          error={fieldError("limits.conversations_per_day")}
        />
        <TextField
          label="Messages par conversation"
          name="messages_per_conversation"
          inputMode="numeric"
          defaultValue={String(limits.messages_per_conversation)}
          error={fieldError("limits.messages_per_conversation")}
        />
      </fieldset>
      {error && !error.errors.length && <ErrorText>{error.message}</ErrorText>}
      <Button type="submit" disabled={save.isPending}>
        {save.isPending ? "Enregistrement…" : "Enregistrer"}
      </Button>
    </form>
  );
}
