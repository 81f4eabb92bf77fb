import type { Metadata } from "next";
import { ApiKeysPanel } from "@/components/api-keys/api-keys-panel";
import { PageHeader } from "@/components/ui/page-header";
import { listApiKeysEndpoint } from "@/lib/api-keys/api";
import { requireMember } from "@/lib/auth/session";
import { mayCall } from "@/lib/http/endpoint";
import { NoticeCard } from "@/components/ui/card";

export const metadata: Metadata = { title: "Clés API" };

export default async function ApiKeysPage() {
  const member = await requireMember();
  // The roles the API itself allows: other roles get the reason, not a refused request.
  const canManage = mayCall(listApiKeysEndpoint, member.role);
  return (
    <>
      <PageHeader
        title="Clés API"
        description="Une clé donne à un programme les droits que vous cochez, rien de plus. Elle ne peut jamais approuver une proposition : seule une personne connectée le peut."
      />
      {canManage ? (
        <ApiKeysPanel />
      ) : (
        <NoticeCard>
          Seuls les propriétaires, les administrateurs et les développeurs de l’organisation gèrent les clés API.
        </NoticeCard>
      )}
    </>
  );
}
