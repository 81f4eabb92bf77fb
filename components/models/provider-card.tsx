"use client";

import { useMutation, useQueryClient } from "@tanstack/react-query";
import { useState, type FormEvent } from "react";
import { toast } from "sonner";
import { urlRefusalLabels } from "@/components/mcp/labels";
import { Badge } from "@/components/ui/badge";
import { Button } from "@/components/ui/button";
import { TextField } from "@/components/ui/field";
import { ApiClientError } from "@/lib/client/errors";
import type { ModelProviderObject, ModelProviderTestObject } from "@/lib/models/schemas";
import { sourceLabels, testResultLabels } from "./labels";
import { providerKeys, removeModelProvider, saveModelProvider, testModelProvider } from "./queries";
import { ErrorText } from "@/components/ui/error-text";
import { Card } from "@/components/ui/card";

/** One provider: its models, where its settings come from, the form that sets them and the connection test. */
export function ProviderCard({ provider }: { provider: ModelProviderObject }) {
  const queryClient = useQueryClient();
  const [error, setError] = useState<ApiClientError>();
  const [test, setTest] = useState<ModelProviderTestObject>();
  const refresh = () => void queryClient.invalidateQueries({ queryKey: providerKeys.all });
  const save = useMutation({
    mutationFn: (body: { base_url: string; api_key?: string | null }) => saveModelProvider(provider.provider, body),
    onSuccess: () => {
      setError(undefined);
      setTest(undefined);
      toast.success(`Fournisseur « ${provider.provider} » enregistré.`);
      refresh();
    },
    onError: (e) => setError(e instanceof ApiClientError ? e : undefined),
  });
  const remove = useMutation({
    mutationFn: () => removeModelProvider(provider.provider),
    onSuccess: () => {
      setTest(undefined);
      toast.success("Réglages de l’organisation retirés.");
      refresh();
    },
    onError: (e) => toast.error(e.message),
  });
  const check = useMutation({
    mutationFn: () => testModelProvider(provider.provider),
    onSuccess: setTest,
    onError: (e) => toast.error(e.message),
  });

  const urlRefusal =
    error?.code === "url_not_allowed" ? error.errors.find((e) => e.field === "base_url")?.code : undefined;

  function onSubmit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    const form = new FormData(event.currentTarget);
    const key = String(form.get("api_key") ?? "");
    save.mutate(
      { base_url: String(form.get("base_url") ?? ""), ...(key ? { api_key: key } : {}) },
      { onSuccess: () => (event.target as HTMLFormElement).reset() },
    );
  }

  const tone = provider.source === "none" ? "warning" : provider.source === "organization" ? "success" : "info";
  return (
    <Card as="section" aria-labelledby={`provider-${provider.provider}`}>
      <div className="flex flex-wrap items-center justify-between gap-2">
        <h2 id={`provider-${provider.provider}`} className="text-base font-semibold text-slate-900">
          {provider.provider}
        </h2>
        <Badge tone={tone}>{sourceLabels[provider.source]}</Badge>
      </div>
      <p className="mt-1 text-sm text-slate-600">Modèles : {provider.models.map((m) => m.name).join(", ")}</p>
      {provider.source === "organization" && (
        <p className="mt-1 text-sm text-slate-600">
          Clé API : {provider.has_api_key ? `enregistrée (…${provider.api_key_hint ?? ""})` : "aucune"}
        </p>
      )}
      <form
        onSubmit={onSubmit}
        className="mt-4 space-y-3"
        noValidate
        aria-label={`Réglages du fournisseur ${provider.provider}`}
      >
        <TextField
          label="URL de base (API compatible OpenAI)"
          error={urlRefusal ? (urlRefusalLabels[urlRefusal] ?? error?.message) : error?.fieldMessage("base_url")}
          hint="Par exemple https://api.mistral.ai/v1. Les adresses internes ne sont acceptées que si l’opérateur les autorise."
          name="base_url"
          type="url"
          defaultValue={provider.base_url ?? provider.default_base_url ?? ""}
        />
        <TextField
          label="Clé API"
          error={error?.fieldMessage("api_key")}
          hint={
            provider.has_api_key && provider.source === "organization"
              ? "Laissez vide pour garder la clé enregistrée (tant que l’URL reste sur le même hôte)."
              : "Chiffrée au repos, jamais réaffichée."
          }
          name="api_key"
          type="password"
          autoComplete="off"
        />
        {error && !error.errors.length && <ErrorText>{error.message}</ErrorText>}
        <div className="flex flex-wrap gap-2">
          <Button type="submit" disabled={save.isPending}>
            {save.isPending ? "Enregistrement…" : "Enregistrer"}
          </Button>
          <Button type="button" variant="secondary" disabled={check.isPending} onClick={() => check.mutate()}>
            {check.isPending ? "Test en cours…" : "Tester la connexion"}
          </Button>
          {provider.source === "organization" && (
            <Button type="button" variant="ghost" disabled={remove.isPending} onClick={() => remove.mutate()}>
              Revenir aux réglages du serveur
            </Button>
          )}
        </div>
      </form>
      {test && <TestResult result={test} />}
    </Card>
  );
}

function TestResult({ result }: { result: ModelProviderTestObject }) {
  return (
    <div
      role="status"
      className={`mt-4 rounded-md px-3 py-2 text-sm ${result.ok ? "bg-emerald-50 text-emerald-900" : "bg-red-50 text-red-900"}`}
    >
      <p className="font-medium">
        {testResultLabels[result.result]}
        {result.ok && result.model_count !== null ? ` : ${result.model_count} modèle(s) disponible(s).` : ""}
      </p>
      <p className="mt-0.5 text-xs">
        {result.http_status !== null ? `HTTP ${result.http_status} · ` : ""}
        {result.duration_ms} ms{result.ok ? "" : ` · ${result.message}`}
      </p>
    </div>
  );
}
