import type { Metadata } from "next";
import { PageHeader } from "@/components/ui/page-header";
import { WebhooksPanel } from "@/components/webhooks/webhooks-panel";
import { requireMember } from "@/lib/auth/session";
import { mayCall } from "@/lib/http/endpoint";
import { listWebhookEndpointsEndpoint } from "@/lib/webhooks/api";
import { NoticeCard } from "@/components/ui/card";

export const metadata: Metadata = { title: "Webhooks" };

export default async function WebhooksPage() {
  const member = await requireMember();
  // The roles the API itself allows: other roles get the reason, not a refused request.
  const canManage = mayCall(listWebhookEndpointsEndpoint, member.role);
  return (
    <>
      <PageHeader
        title="Webhooks"
        description="Guichet prévient vos systèmes : propositions créées et décidées, opérations à issue inconnue, exécutions. Chaque livraison est signée (Standard Webhooks) et retentée pendant 24 h ; un webhook qui échoue sans cesse est désactivé."
      />
      {canManage ? (
        <WebhooksPanel />
      ) : (
        <NoticeCard>Seuls les propriétaires et les administrateurs de l’organisation gèrent les webhooks.</NoticeCard>
      )}
    </>
  );
}
