import type { Metadata } from "next";
import { OperationsPanel } from "@/components/operations/operations-panel";
import { PageHeader } from "@/components/ui/page-header";
import { requireMember } from "@/lib/auth/session";
import { mayCall } from "@/lib/http/endpoint";
import { resolveOperationEndpoint } from "@/lib/operations/api";

export const metadata: Metadata = { title: "Opérations" };

export default async function OperationsPage() {
  const member = await requireMember();
  return (
    <>
      <PageHeader
        title="Opérations"
        description="Ce que Guichet a envoyé aux services, sous une clé d’idempotence. Quand un service n’a pas pu confirmer une écriture, Guichet n’invente pas de résultat : le run est suspendu jusqu’à ce qu’une personne vérifie et tranche."
      />
      <OperationsPanel canResolve={mayCall(resolveOperationEndpoint, member.role)} />
    </>
  );
}
