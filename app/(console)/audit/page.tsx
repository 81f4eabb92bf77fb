import type { Metadata } from "next";
import { Suspense } from "react";
import { AuditPanel } from "@/components/audit/audit-panel";
import { PageHeader } from "@/components/ui/page-header";
import { listAuditEventsEndpoint } from "@/lib/audit/api";
import { requireMember } from "@/lib/auth/session";
import { mayCall } from "@/lib/http/endpoint";
import { NoticeCard } from "@/components/ui/card";

export const metadata: Metadata = { title: "Audit" };

export default async function AuditPage() {
  const member = await requireMember();
  // The roles the API itself allows: other roles get the reason, not a refused request.
  const canRead = mayCall(listAuditEventsEndpoint, member.role);
  return (
    <>
      <PageHeader
        title="Audit"
        description="Qui a fait quoi dans l’organisation : connexions, clés API, membres, politiques, connecteurs, agents, décisions et webhooks. Le journal ne se modifie pas ; les événements sont conservés selon le réglage de l’instance."
      />
      {canRead ? (
        <Suspense fallback={<p className="text-sm text-slate-500">Chargement…</p>}>
          <AuditPanel />
        </Suspense>
      ) : (
        <NoticeCard>
          Seuls les propriétaires et les administrateurs de l’organisation consultent le journal d’audit.
        </NoticeCard>
      )}
    </>
  );
}
