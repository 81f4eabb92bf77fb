import type { Metadata } from "next";
import { Journal } from "@/components/journal/journal";
import { PageHeader } from "@/components/ui/page-header";
import { requireMember } from "@/lib/auth/session";
import { mayCall } from "@/lib/http/endpoint";
import { createRunEndpoint } from "@/lib/runs/api";

export const metadata: Metadata = { title: "Journal" };

// Contrôle › Journal: runs, their steps and the tool-call telemetry, over the same /v1 handlers as the API.
export default async function JournalPage() {
  const member = await requireMember();
  const canWrite = mayCall(createRunEndpoint, member.role);
  return (
    <>
      <PageHeader
        title="Journal"
        description="Chaque appel d’outil passe par le guichet et devient une étape : outil, version, statut, durée et empreinte des arguments — jamais les arguments eux-mêmes."
      />
      <Journal canWrite={canWrite} memberId={member.id} />
    </>
  );
}
