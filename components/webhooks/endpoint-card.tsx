"use client";

import { useMutation, useQueryClient } from "@tanstack/react-query";
import { useState } from "react";
import { toast } from "sonner";
import { Badge } from "@/components/ui/badge";
import { Button } from "@/components/ui/button";
import { ConfirmButton } from "@/components/ui/confirm-button";
import { eventTypeLabels, type WebhookEndpointObject } from "@/lib/webhooks/schemas";
import { DeliveryLog } from "./delivery-log";
import { deleteWebhookEndpoint, rotateWebhookSecret, updateWebhookEndpoint, webhookKeys } from "./queries";
import { Card } from "@/components/ui/card";

const dateFormat = new Intl.DateTimeFormat("fr-FR", { dateStyle: "medium", timeStyle: "short" });

/** Why an endpoint stopped receiving, and what « Réactiver » does. */
function DisabledNotice({ endpoint }: { endpoint: WebhookEndpointObject }) {
  const since = endpoint.disabled_at ? ` le ${dateFormat.format(new Date(endpoint.disabled_at))}` : "";
  return (
    <p role="status" className="rounded-md border border-amber-200 bg-amber-50 px-3 py-2 text-sm text-amber-900">
      {endpoint.disabled_reason === "repeated_failures"
        ? `Désactivé automatiquement${since} après ${endpoint.consecutive_failures} échecs de livraison consécutifs. `
        : `Mis en pause${since}. `}
      Les événements restent en attente et partiront dès la réactivation.
    </p>
  );
}

export function EndpointCard({
  endpoint,
  onSecret,
}: {
  endpoint: WebhookEndpointObject;
  onSecret: (revealed: { url: string; secret: string }) => void;
}) {
  const queryClient = useQueryClient();
  const [logOpen, setLogOpen] = useState(false);
  const refresh = () => void queryClient.invalidateQueries({ queryKey: webhookKeys.endpoints() });
  const toggle = useMutation({
    mutationFn: (enabled: boolean) => updateWebhookEndpoint(endpoint.id, { enabled }),
    onSuccess: (data) => {
      toast.success(data.status === "enabled" ? "Webhook réactivé." : "Webhook mis en pause.");
      refresh();
      void queryClient.invalidateQueries({ queryKey: webhookKeys.deliveries(endpoint.id) });
    },
    onError: (error) => toast.error(error.message),
  });
  const rotate = useMutation({
    mutationFn: () => rotateWebhookSecret(endpoint.id),
    onSuccess: (data) => {
      onSecret({ url: data.url, secret: data.secret });
      refresh();
    },
    onError: (error) => toast.error(error.message),
  });
  const remove = useMutation({
    mutationFn: () => deleteWebhookEndpoint(endpoint.id),
    onSuccess: () => {
      toast.success("Webhook supprimé.");
      refresh();
    },
    onError: (error) => toast.error(error.message),
  });
  const enabled = endpoint.status === "enabled";

  return (
    <Card as="li" padding="sm" className="space-y-3" aria-label={`Webhook ${endpoint.url}`}>
      <div className="flex flex-wrap items-start justify-between gap-3">
        <div className="min-w-0 space-y-1">
          <p className="font-mono text-sm break-all text-slate-900">{endpoint.url}</p>
          {endpoint.description && <p className="text-sm text-slate-600">{endpoint.description}</p>}
          <p className="text-xs text-slate-500">
            Secret <code>{endpoint.secret_prefix}…</code> · créé le {dateFormat.format(new Date(endpoint.created_at))}
          </p>
        </div>
        <Badge tone={enabled ? "success" : "warning"}>{enabled ? "Actif" : "Désactivé"}</Badge>
      </div>
      <div className="flex flex-wrap gap-1">
        {endpoint.events.map((type) => (
          <Badge key={type} tone="info">
            {eventTypeLabels[type]}
          </Badge>
        ))}
      </div>
      {!enabled && <DisabledNotice endpoint={endpoint} />}
      <div className="flex flex-wrap gap-2">
        <Button variant="secondary" aria-expanded={logOpen} onClick={() => setLogOpen((open) => !open)}>
          {logOpen ? "Masquer les livraisons" : "Livraisons"}
        </Button>
        <Button
          variant={enabled ? "ghost" : "primary"}
          disabled={toggle.isPending}
          onClick={() => toggle.mutate(!enabled)}
        >
          {enabled ? "Mettre en pause" : "Réactiver"}
        </Button>
        <ConfirmButton
          variant="ghost"
          disabled={rotate.isPending}
          question="Renouveler le secret ?"
          detail="L’ancien cessera aussitôt de signer les livraisons."
          confirmLabel="Renouveler le secret"
          onConfirm={() => rotate.mutate()}
        >
          Renouveler le secret
        </ConfirmButton>
        <ConfirmButton
          variant="ghost"
          className="text-red-700"
          disabled={remove.isPending}
          question={`Supprimer le webhook ${endpoint.url} ?`}
          detail="Son journal de livraisons est supprimé avec lui."
          confirmLabel="Supprimer le webhook"
          onConfirm={() => remove.mutate()}
        >
          Supprimer
        </ConfirmButton>
      </div>
      {logOpen && <DeliveryLog endpointId={endpoint.id} url={endpoint.url} enabled={enabled} />}
    </Card>
  );
}
