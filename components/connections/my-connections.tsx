"use client";

import { useMutation, useQueryClient } from "@tanstack/react-query";
import { useState, type FormEvent } from "react";
import { toast } from "sonner";
import { Badge } from "@/components/ui/badge";
import { Button } from "@/components/ui/button";
import { Card } from "@/components/ui/card";
import { ConfirmButton } from "@/components/ui/confirm-button";
import { EmptyState } from "@/components/ui/empty-state";
import { TextField } from "@/components/ui/field";
import { QueryState } from "@/components/ui/query-state";
import { ApiClientError } from "@/lib/client/errors";
import type { ConnectionObject } from "@/lib/connections/schemas";
import { connectHref, connectionKeys, disconnectMe, saveMyToken, useMyConnections } from "./queries";

// « Mes connexions »: the connectors that act as each member, and the member's
// own account at each (signed in by OAuth at the upstream, or a token of their
// own). Guichet keeps the tokens sealed and never shows them back.

const dateFormat = new Intl.DateTimeFormat("fr-FR", { dateStyle: "medium", timeStyle: "short" });
const when = (value: string | null) => (value ? dateFormat.format(new Date(value)) : "Jamais");

function StateBadge({ connection }: { connection: ConnectionObject }) {
  if (connection.state === "connected")
    return (
      <Badge tone="success" testId="connection-state">
        {connection.account ? `Connecté en tant que ${connection.account}` : "Connecté"}
      </Badge>
    );
  if (connection.state === "needs_reconnect")
    return (
      <Badge tone="warning" testId="connection-state">
        À reconnecter
      </Badge>
    );
  return <Badge testId="connection-state">Non connecté</Badge>;
}

export function MyConnections() {
  const connections = useMyConnections();
  return (
    <Card as="section" padding="none" className="space-y-3 px-5 py-4" aria-labelledby="connexions">
      <h2 id="connexions" className="scroll-mt-20 text-sm font-semibold text-slate-900">
        Mes connexions
      </h2>
      <p className="text-sm text-slate-600">
        Certains connecteurs agissent avec votre propre compte : les runs que vous lancez (« Essayer », le Journal,
        votre client MCP) les utilisent en votre nom, et une écriture que vous demandez est validée avec votre compte,
        quel que soit l’approbateur.
      </p>
      <QueryState
        query={connections}
        isEmpty={(list) => list.length === 0}
        empty={
          <EmptyState title="Aucun connecteur à votre nom">
            Votre organisation n’a aucun connecteur qui se connecte avec le compte de chaque membre.
          </EmptyState>
        }
      >
        {(list) => (
          <ul className="divide-y divide-slate-100" aria-label="Mes connexions">
            {list.map((connection) => (
              <ConnectionRow key={connection.server.id} connection={connection} />
            ))}
          </ul>
        )}
      </QueryState>
    </Card>
  );
}

function ConnectionRow({ connection }: { connection: ConnectionObject }) {
  const client = useQueryClient();
  const { server } = connection;
  const refresh = () => void client.invalidateQueries({ queryKey: connectionKeys.all });
  const disconnect = useMutation({
    mutationFn: () => disconnectMe(server.id),
    onSuccess: () => {
      toast.success(`Déconnecté de « ${server.name} ».`);
      refresh();
    },
    onError: (error) => toast.error(error.message),
  });
  const connected = connection.state !== "not_connected";
  return (
    <li className="space-y-2 py-3" data-testid={`connection-${server.id}`}>
      <div className="flex flex-wrap items-center gap-2">
        <span className="font-medium text-slate-900">{server.name}</span>
        <StateBadge connection={connection} />
        <span className="text-xs text-slate-500">
          {server.auth === "oauth" ? "Connexion OAuth" : "Jeton personnel"}
        </span>
      </div>
      {connected && (
        <p className="text-xs text-slate-600">
          {connection.expires_at && <>Jeton valable jusqu’au {when(connection.expires_at)} (renouvelé seul). </>}
          Dernière utilisation : {when(connection.last_used_at)}.
        </p>
      )}
      {connection.state === "needs_reconnect" && (
        <p className="text-xs text-amber-800">
          Le service a refusé de renouveler l’accès : reconnectez-vous pour que vos runs l’utilisent à nouveau.
        </p>
      )}
      <div className="flex flex-wrap items-start gap-2">
        {server.auth === "oauth" ? (
          <a
            href={connectHref(connection.connect_url, "/preferences#connexions")}
            className="inline-flex items-center rounded-md bg-brand-600 px-3 py-2 text-sm font-medium text-white hover:bg-brand-700"
          >
            {connected ? "Reconnecter" : "Connecter"}
          </a>
        ) : (
          <TokenForm serverId={server.id} serverName={server.name} replacing={connected} onSaved={refresh} />
        )}
        {connected && (
          <ConfirmButton
            question={`Vous déconnecter de « ${server.name} » ?`}
            detail="Guichet oublie votre jeton : vos runs ne pourront plus utiliser ce connecteur avant que vous vous reconnectiez."
            confirmLabel="Déconnecter"
            onConfirm={() => disconnect.mutate()}
          >
            Déconnecter
          </ConfirmButton>
        )}
      </div>
    </li>
  );
}

function tokenErrorText(error: Error): string {
  if (error instanceof ApiClientError && error.errors.some((e) => e.field === "token"))
    return "Ce jeton n’est pas accepté : collez-le en entier (4 096 caractères au plus).";
  if (error instanceof ApiClientError && error.code === "connection_auth_mismatch")
    return "Ce connecteur ne prend plus de jeton personnel : rechargez la page.";
  return error.message;
}

function TokenForm({
  serverId,
  serverName,
  replacing,
  onSaved,
}: {
  serverId: number;
  serverName: string;
  replacing: boolean;
  onSaved: () => void;
}) {
  const [token, setToken] = useState("");
  const [error, setError] = useState<string>();
  const save = useMutation({
    mutationFn: () => saveMyToken(serverId, token.trim()),
    onSuccess: () => {
      setToken("");
      setError(undefined);
      toast.success(`Jeton enregistré pour « ${serverName} ».`);
      onSaved();
    },
    onError: (caught) => setError(tokenErrorText(caught)),
  });
  function onSubmit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    if (!token.trim()) return setError("Collez le jeton que le service vous a donné.");
    save.mutate();
  }
  return (
    <form onSubmit={onSubmit} className="flex flex-wrap items-end gap-2" noValidate>
      <div className="w-72">
        <TextField
          label={replacing ? "Remplacer mon jeton" : "Mon jeton"}
          type="password"
          autoComplete="off"
          value={token}
          onChange={(event) => setToken(event.target.value)}
          error={error}
        />
      </div>
      <Button type="submit" disabled={save.isPending}>
        Enregistrer le jeton
      </Button>
    </form>
  );
}
