import type { Metadata } from "next";
import { AgentsPanel } from "@/components/agents/agents-panel";
import { PageHeader } from "@/components/ui/page-header";
import { requireMember } from "@/lib/auth/session";
import { Role, scopesForRole } from "@/lib/auth/scopes";

export const metadata: Metadata = { title: "Agents" };

// Développeurs › Agents: the table and the agent drawer, over the same /v1 handlers as the API.
export default async function AgentsPage() {
  const member = await requireMember();
  const canWrite = scopesForRole(Role.parse(member.role)).includes("agents:write");
  // Tracing keeps a (redacted) copy of what runs see: owners and admins decide it.
  const canTrace = member.role === "owner" || member.role === "admin";
  return (
    <>
      <PageHeader
        title="Agents"
        description="Un agent est la configuration qu’un run exécute : instructions, modèle et outils. La console et l’API passent par le même service, avec les mêmes refus."
      />
      <AgentsPanel canWrite={canWrite} canTrace={canTrace} viewer={{ id: member.id, role: Role.parse(member.role) }} />
    </>
  );
}
