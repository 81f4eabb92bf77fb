import type { Metadata } from "next";
import { Suspense } from "react";
import { AuditPanel } from "@/components/audit/audit-panel";
import { PageHeader } from "@/components/ui/page-header";
import { listAuditEventsEndpoint } from "@/lib/audit/api";
import { requireMember } from "@/lib/auth/session";
import { mayCall } from "@/lib/http/endpoint";

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
        <p className="rounded-lg border border-slate-200 bg-white px-5 py-4 text-sm text-slate-700">
          Seuls les propriétaires et les administrateurs de l’organisation consultent le journal d’audit.
        </p>
      )}
    </>
  );
}
