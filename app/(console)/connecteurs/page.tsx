import type { Metadata } from "next";
import { ConnectorsPanel } from "@/components/mcp/connectors-panel";
import { PrivateOriginsNote } from "@/components/mcp/private-origins-note";
import { PageHeader } from "@/components/ui/page-header";
import { requireMember } from "@/lib/auth/session";
import { mayCall } from "@/lib/http/endpoint";
import { listMcpServersEndpoint } from "@/lib/mcp/api";
import { NoticeCard } from "@/components/ui/card";

export const metadata: Metadata = { title: "Connecteurs MCP" };

export default async function ConnectorsPage() {
  const member = await requireMember();
  return (
    <>
      <PageHeader
        title="Connecteurs MCP"
        description="Les serveurs MCP de votre organisation. Chaque outil synchronisé attend la revue d’une personne avant d’être proposé aux agents ; c’est elle qui décide s’il écrit des données."
      />
      {mayCall(listMcpServersEndpoint, member.role) ? (
        <div className="space-y-4">
          <PrivateOriginsNote organizationId={member.organization.id} />
          <ConnectorsPanel />
        </div>
      ) : (
        <NoticeCard>
          Seuls les propriétaires et les administrateurs de l’organisation gèrent les connecteurs. La liste des outils
          disponibles est dans « Outils ».
        </NoticeCard>
      )}
    </>
  );
}
