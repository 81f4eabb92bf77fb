import type { Metadata } from "next";
import { AgentsPanel } from "@/components/agents/agents-panel";
import { PageHeader } from "@/components/ui/page-header";
import { requireMember } from "@/lib/auth/session";
import { isManager } from "@/lib/auth/scopes";
import { mayCall } from "@/lib/http/endpoint";
import { createAgentEndpoint } from "@/lib/agents/api";

export const metadata: Metadata = { title: "Agents" };

// Développeurs › Agents: the table and the agent drawer, over the same /v1 handlers as the API.
export default async function AgentsPage() {
  const member = await requireMember();
  const canWrite = mayCall(createAgentEndpoint, member.role);
  // Tracing keeps a (redacted) copy of what runs see: owners and admins decide it.
  const canTrace = isManager(member.role);
  return (
    <>
      <PageHeader
        title="Agents"
        description="Un agent est la configuration qu’un run exécute : instructions, modèle et outils. La console et l’API passent par le même service, avec les mêmes refus."
      />
      <AgentsPanel canWrite={canWrite} canTrace={canTrace} viewer={{ id: member.id, role: member.role }} />
    </>
  );
}
