"use client";

import { useMutation, useQueryClient } from "@tanstack/react-query";
import { KeyRound } from "lucide-react";
import { useState, type FormEvent } from "react";
import { toast } from "sonner";
import { Badge } from "@/components/ui/badge";
import { Button } from "@/components/ui/button";
import { ConfirmButton } from "@/components/ui/confirm-button";
import { CopyButton } from "@/components/ui/copy-button";
import { EmptyState } from "@/components/ui/empty-state";
import { QueryState } from "@/components/ui/query-state";
import { TextField } from "@/components/ui/field";
import { Table, Td, Th } from "@/components/ui/table";
import type { Scope } from "@/lib/auth/scopes";
import { ApiClientError } from "@/lib/client/errors";
import { apiKeyKeys, createApiKey, revokeApiKey, useApiKeys } from "./queries";
import { ErrorText } from "@/components/ui/error-text";
import { Card } from "@/components/ui/card";

const scopeLabels: Record<string, string> = {
  "agents:read": "Agents — lecture",
  "agents:write": "Agents — écriture",
  "runs:read": "Runs — lecture",
  "runs:write": "Runs — écriture",
  "files:read": "Fichiers — lecture",
  "files:write": "Fichiers — écriture",
  "tools:read": "Outils — lecture",
};

const dateFormat = new Intl.DateTimeFormat("fr-FR", { dateStyle: "medium", timeStyle: "short" });

export function ApiKeysPanel() {
  const queryClient = useQueryClient();
  const keys = useApiKeys();
  const [created, setCreated] = useState<{ name: string; secret: string }>();
  const [formError, setFormError] = useState<ApiClientError>();

  const create = useMutation({
    mutationFn: createApiKey,
    onSuccess: (data) => {
      setCreated({ name: data.name, secret: data.secret });
      setFormError(undefined);
      void queryClient.invalidateQueries({ queryKey: apiKeyKeys.list() });
    },
    onError: (error) => setFormError(error instanceof ApiClientError ? error : undefined),
  });
  const revoke = useMutation({
    mutationFn: revokeApiKey,
    onSuccess: () => {
      toast.success("Clé révoquée.");
      void queryClient.invalidateQueries({ queryKey: apiKeyKeys.list() });
    },
    onError: (error) => toast.error(error.message),
  });

  function onSubmit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    const form = new FormData(event.currentTarget);
    create.mutate({ name: String(form.get("name") ?? ""), scopes: form.getAll("scopes").map(String) as Scope[] });
  }

  return (
    <div className="grid gap-8 lg:grid-cols-[minmax(0,1fr)_22rem]">
      <section aria-labelledby="keys-title">
        <h2 id="keys-title" className="sr-only">
          Clés existantes
        </h2>
        <QueryState
          query={keys}
          isEmpty={(list) => list.length === 0}
          empty={<EmptyState title="Aucune clé API">Créez une clé pour appeler l’API depuis un programme.</EmptyState>}
        >
          {(list) => (
            <Table caption="Clés API">
              <thead>
                <tr>
                  <Th>Nom</Th>
                  <Th>Clé</Th>
                  <Th>Droits</Th>
                  <Th>Dernière utilisation</Th>
                  <Th>
                    <span className="sr-only">Actions</span>
                  </Th>
                </tr>
              </thead>
              <tbody className="divide-y divide-slate-100">
                {list.map((key) => (
                  <tr key={key.id}>
                    <Td className="font-medium">{key.name}</Td>
                    <Td>
                      <code className="text-xs">{key.prefix}…</code>
                    </Td>
                    <Td>
                      <div className="flex max-w-xs flex-wrap gap-1">
                        {key.scopes.map((s) => (
                          <Badge key={s}>{s}</Badge>
                        ))}
                      </div>
                    </Td>
                    <Td className="whitespace-nowrap text-slate-600">
                      {key.last_used_at ? dateFormat.format(new Date(key.last_used_at)) : "Jamais"}
                    </Td>
                    <Td className="text-right">
                      {key.revoked_at ? (
                        <Badge tone="danger">Révoquée</Badge>
                      ) : (
                        <ConfirmButton
                          question={`Révoquer la clé « ${key.name} » ?`}
                          detail="Les programmes qui l’utilisent seront refusés."
                          confirmLabel="Révoquer la clé"
                          onConfirm={() => revoke.mutate(key.id)}
                        >
                          Révoquer
                        </ConfirmButton>
                      )}
                    </Td>
                  </tr>
                ))}
              </tbody>
            </Table>
          )}
        </QueryState>
      </section>

      <Card as="section" className="h-fit" aria-labelledby="new-key-title">
        <h2 id="new-key-title" className="flex items-center gap-2 font-semibold">
          <KeyRound size={16} /> Nouvelle clé
        </h2>
        {created ? (
          <div className="mt-4 space-y-3" data-testid="new-key-secret">
            <p className="text-sm">Copiez la clé « {created.name} » maintenant : elle ne sera plus jamais affichée.</p>
            <code className="block rounded bg-slate-100 p-2 text-xs break-all">{created.secret}</code>
            <div className="flex gap-2">
              <CopyButton text={created.secret} confirmation="Clé copiée." />
              <Button variant="ghost" onClick={() => setCreated(undefined)}>
                J’ai copié la clé
              </Button>
            </div>
          </div>
        ) : (
          <form onSubmit={onSubmit} className="mt-4 space-y-4" noValidate>
            <TextField
              label="Nom"
              error={formError?.fieldMessage("name")}
              name="name"
              maxLength={100}
              placeholder="Intégration CI"
            />
            <fieldset>
              <legend className="text-sm font-medium text-slate-800">Droits</legend>
              <div className="mt-2 space-y-1">
                {Object.entries(scopeLabels).map(([scope, label]) => (
                  <label key={scope} className="flex items-center gap-2 text-sm">
                    <input type="checkbox" name="scopes" value={scope} defaultChecked={scope.endsWith(":read")} />{" "}
                    {label} <code className="text-xs text-slate-500">{scope}</code>
                  </label>
                ))}
              </div>
              {formError?.fieldMessage("scopes") && (
                <ErrorText small className="mt-1">
                  Choisissez au moins un droit.
                </ErrorText>
              )}
            </fieldset>
            {formError && !formError.errors.length && <ErrorText>{formError.message}</ErrorText>}
            <Button type="submit" disabled={create.isPending}>
              {create.isPending ? "Création…" : "Créer la clé"}
            </Button>
          </form>
        )}
      </Card>
    </div>
  );
}
