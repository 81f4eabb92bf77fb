import type { Metadata } from "next";
import { PolicyEditor } from "@/components/policies/policy-editor";
import { PageHeader } from "@/components/ui/page-header";
import { requireMember } from "@/lib/auth/session";
import { mayCall } from "@/lib/http/endpoint";
import { putPolicyEndpoint } from "@/lib/policies/api";

export const metadata: Metadata = { title: "Politiques" };

export default async function PoliciesPage() {
  const member = await requireMember();
  return (
    <>
      <PageHeader
        title="Politiques"
        description="La table qui décide, pour chaque outil, s’il passe, s’il attend l’accord de personnes — combien, de quels rôles, pendant combien de temps — ou s’il est refusé. Les prompts ne décident jamais."
      />
      <PolicyEditor canEdit={mayCall(putPolicyEndpoint, member.role)} />
    </>
  );
}
