import type { Metadata } from "next";
import { ProvidersPanel } from "@/components/models/providers-panel";
import { PrivateOriginsNote } from "@/components/mcp/private-origins-note";
import { PageHeader } from "@/components/ui/page-header";
import { requireMember } from "@/lib/auth/session";
import { mayCall } from "@/lib/http/endpoint";
import { listModelProvidersEndpoint } from "@/lib/models/api";
import { NoticeCard } from "@/components/ui/card";

export const metadata: Metadata = { title: "Modèles" };

export default async function ModelsPage() {
  const member = await requireMember();
  return (
    <>
      <PageHeader
        title="Modèles"
        description="Les modèles de votre offre et leurs fournisseurs. Les réglages de l’organisation (URL de base, clé API) priment sur ceux du serveur ; la clé est chiffrée et n’est jamais réaffichée."
      />
      {mayCall(listModelProvidersEndpoint, member.role) ? (
        <div className="space-y-4">
          <PrivateOriginsNote organizationId={member.organization.id} />
          <ProvidersPanel />
        </div>
      ) : (
        <NoticeCard>
          Seuls les propriétaires et les administrateurs de l’organisation règlent les fournisseurs de modèles.
        </NoticeCard>
      )}
    </>
  );
}
