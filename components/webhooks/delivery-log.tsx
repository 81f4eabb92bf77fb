"use client";

import { useMutation, useQueryClient } from "@tanstack/react-query";
import { toast } from "sonner";
import { Badge } from "@/components/ui/badge";
import { Button } from "@/components/ui/button";
import { EmptyState } from "@/components/ui/empty-state";
import { QueryState } from "@/components/ui/query-state";
import { Table, Td, Th } from "@/components/ui/table";
import { eventTypeLabels, type DeliveryStatus } from "@/lib/webhooks/schemas";
import { resendWebhookDelivery, useWebhookDeliveries, webhookKeys } from "./queries";

const statusBadges: Record<DeliveryStatus, { tone: "success" | "warning" | "danger"; label: string }> = {
  succeeded: { tone: "success", label: "Livrée" },
  pending: { tone: "warning", label: "En attente" },
  failed: { tone: "danger", label: "Abandonnée" },
};

const dateFormat = new Intl.DateTimeFormat("fr-FR", { dateStyle: "short", timeStyle: "medium" });

/** One endpoint's deliveries, newest first, each with « Renvoyer » (same webhook-id, sent now). */
export function DeliveryLog({ endpointId, url, enabled }: { endpointId: string; url: string; enabled: boolean }) {
  const queryClient = useQueryClient();
  const deliveries = useWebhookDeliveries(endpointId);
  const resend = useMutation({
    mutationFn: (deliveryId: string) => resendWebhookDelivery(endpointId, deliveryId),
    onSuccess: () => {
      toast.success("Livraison renvoyée.");
      void queryClient.invalidateQueries({ queryKey: webhookKeys.deliveries(endpointId) });
    },
    onError: (error) => toast.error(error.message),
  });

  return (
    <QueryState
      query={deliveries}
      isEmpty={(list) => list.length === 0}
      empty={
        <EmptyState title="Aucune livraison">
          Les événements cochés apparaîtront ici dès qu’ils se produiront.
        </EmptyState>
      }
    >
      {(list) => (
        <Table caption={`Livraisons de ${url}`}>
          <thead>
            <tr>
              <Th>Événement</Th>
              <Th>Statut</Th>
              <Th>Tentatives</Th>
              <Th>Code de réponse</Th>
              <Th>Durée</Th>
              <Th>Date</Th>
              <Th>
                <span className="sr-only">Actions</span>
              </Th>
            </tr>
          </thead>
          <tbody className="divide-y divide-slate-100">
            {list.map((delivery) => (
              <tr key={delivery.id} data-delivery={delivery.id}>
                <Td>
                  <p className="font-medium">{eventTypeLabels[delivery.event_type]}</p>
                  <code className="text-xs text-slate-500">{delivery.id}</code>
                </Td>
                <Td>
                  <Badge tone={statusBadges[delivery.status].tone}>{statusBadges[delivery.status].label}</Badge>
                  {delivery.last_error && <p className="mt-1 text-xs text-slate-500">{delivery.last_error}</p>}
                </Td>
                <Td className="tabular-nums">{delivery.attempts}</Td>
                <Td className="tabular-nums">{delivery.response_status ?? "—"}</Td>
                <Td className="whitespace-nowrap tabular-nums">
                  {delivery.duration_ms === null ? "—" : `${delivery.duration_ms} ms`}
                </Td>
                <Td className="whitespace-nowrap text-slate-600">
                  <time dateTime={delivery.created_at}>{dateFormat.format(new Date(delivery.created_at))}</time>
                </Td>
                <Td className="text-right">
                  <Button
                    variant="secondary"
                    className="px-2 py-1 text-xs"
                    disabled={!enabled || resend.isPending}
                    title={enabled ? undefined : "Réactivez le webhook pour renvoyer."}
                    onClick={() => resend.mutate(delivery.id)}
                  >
                    Renvoyer
                  </Button>
                </Td>
              </tr>
            ))}
          </tbody>
        </Table>
      )}
    </QueryState>
  );
}
