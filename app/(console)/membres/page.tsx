import type { Metadata } from "next";
import { MembersPanel } from "@/components/members/members-panel";
import { PageHeader } from "@/components/ui/page-header";
import { requireMember } from "@/lib/auth/session";
import { mayCall } from "@/lib/http/endpoint";
import { listMembersEndpoint } from "@/lib/members/api";
import { NoticeCard } from "@/components/ui/card";

export const metadata: Metadata = { title: "Membres" };

export default async function MembersPage() {
  const member = await requireMember();
  const role = member.role;
  // The roles the API itself allows: other roles get the reason, not a refused request.
  const canManage = mayCall(listMembersEndpoint, role);
  return (
    <>
      <PageHeader
        title="Membres"
        description="Les personnes de votre organisation et leur rôle. Une personne retirée ou désactivée perd l’accès à la console sur-le-champ, et ses approbations ne comptent plus."
      />
      {canManage ? (
        <MembersPanel viewer={{ id: member.id, role }} />
      ) : (
        <NoticeCard>
          Seuls les propriétaires et les administrateurs de l’organisation gèrent les membres et les invitations.
        </NoticeCard>
      )}
    </>
  );
}
