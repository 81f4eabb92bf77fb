"use client";

import { useMutation, useQueryClient } from "@tanstack/react-query";
import { useState, type FormEvent } from "react";
import { toast } from "sonner";
import { Button } from "@/components/ui/button";
import { Field, TextField } from "@/components/ui/field";
import { ApiClientError } from "@/lib/client/errors";
import type { McpServerObject } from "@/lib/mcp/schemas";
import { authLabels, urlRefusalLabels } from "./labels";
import { createMcpServer, mcpKeys } from "./queries";
import { ErrorText } from "@/components/ui/error-text";

/** The client id and secret an admin registered for Guichet at an oauth connector's authorization server, when given. */
function oauthClientOf(form: FormData): { oauth_client_id?: string; oauth_client_secret?: string } {
  const id = String(form.get("oauth_client_id") ?? "").trim();
  const secret = String(form.get("oauth_client_secret") ?? "");
  return { ...(id && { oauth_client_id: id }), ...(id && secret && { oauth_client_secret: secret }) };
}

/** Adding a server: name, Streamable HTTP URL, auth mode and, for org_token, the token (sent once, never shown again). */
export function ServerForm() {
  const queryClient = useQueryClient();
  const [auth, setAuth] = useState<McpServerObject["auth"]>("none");
  const [error, setError] = useState<ApiClientError>();
  const create = useMutation({
    mutationFn: createMcpServer,
    onSuccess: ({ data }) => {
      setError(undefined);
      toast.success(`Connecteur « ${data.name} » ajouté. Synchronisez-le pour lister ses outils.`);
      void queryClient.invalidateQueries({ queryKey: mcpKeys.all });
    },
    onError: (e) => setError(e instanceof ApiClientError ? e : undefined),
  });

  const urlRefusal = error?.code === "url_not_allowed" ? error.errors.find((e) => e.field === "url")?.code : undefined;

  function onSubmit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    const form = new FormData(event.currentTarget);
    const body = {
      name: String(form.get("name") ?? ""),
      url: String(form.get("url") ?? ""),
      auth,
      ...(auth === "org_token" ? { token: String(form.get("token") ?? "") } : {}),
      ...(auth === "oauth" ? oauthClientOf(form) : {}),
    };
    create.mutate(body, { onSuccess: () => (event.target as HTMLFormElement).reset() });
  }

  return (
    <form onSubmit={onSubmit} className="mt-4 space-y-4" noValidate aria-label="Nouveau connecteur">
      <TextField label="Nom" error={error?.fieldMessage("name")} name="name" maxLength={100} placeholder="CRM Acme" />
      <TextField
        label="URL MCP (Streamable HTTP)"
        error={urlRefusal ? (urlRefusalLabels[urlRefusal] ?? error?.message) : error?.fieldMessage("url")}
        hint="Par exemple https://crm.example.com/mcp. Les adresses internes et de métadonnées sont refusées."
        name="url"
        type="url"
        placeholder="https://…/mcp"
      />
      <Field label="Authentification" error={error?.fieldMessage("auth")}>
        {({ id, describedBy }) => (
          <select
            id={id}
            name="auth"
            value={auth}
            onChange={(e) => setAuth(e.target.value as McpServerObject["auth"])}
            aria-describedby={describedBy}
            className="block w-full rounded-md border border-slate-300 bg-white px-3 py-2 text-sm"
          >
            {Object.entries(authLabels).map(([value, label]) => (
              <option key={value} value={value}>
                {label}
              </option>
            ))}
          </select>
        )}
      </Field>
      {auth === "org_token" && (
        <TextField
          label="Jeton"
          error={error?.fieldMessage("token")}
          hint="Chiffré au repos, jamais réaffiché."
          name="token"
          type="password"
          autoComplete="off"
        />
      )}
      {auth === "oauth" && (
        <>
          <p className="text-xs text-slate-600">
            Chaque membre se connecte avec son propre compte depuis « Mes connexions ». Guichet s’enregistre seul auprès
            du serveur d’autorisation ; si son administrateur vous a donné un identifiant client, saisissez-le.
          </p>
          <TextField
            label="Identifiant client (facultatif)"
            error={error?.fieldMessage("oauth_client_id")}
            name="oauth_client_id"
            autoComplete="off"
          />
          <TextField
            label="Secret client (facultatif)"
            error={error?.fieldMessage("oauth_client_secret")}
            hint="Chiffré au repos, jamais réaffiché."
            name="oauth_client_secret"
            type="password"
            autoComplete="off"
          />
        </>
      )}
      {error && !error.errors.length && <ErrorText>{error.message}</ErrorText>}
      <Button type="submit" disabled={create.isPending}>
        {create.isPending ? "Ajout…" : "Ajouter le connecteur"}
      </Button>
    </form>
  );
}
