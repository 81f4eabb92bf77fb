import type { Metadata } from "next";
import { PageHeader } from "@/components/ui/page-header";
import { WidgetsPanel } from "@/components/widgets/widgets-panel";
import { requireMember } from "@/lib/auth/session";
import { mayCall } from "@/lib/http/endpoint";
import { updateWidgetEndpoint } from "@/lib/widgets/api";

export const metadata: Metadata = { title: "Widget" };

// Développeurs › Widget: an agent in a chat bubble on the organization's own sites.
export default async function WidgetsPage() {
  const member = await requireMember();
  return (
    <>
      <PageHeader
        title="Widget"
        description="Une bulle de discussion sur votre site, reliée à un agent. Chaque écriture demandée depuis la bulle attend l’approbation d’une personne dans Approbations."
      />
      <WidgetsPanel canWrite={mayCall(updateWidgetEndpoint, member.role)} />
    </>
  );
}
