import type { Metadata } from "next";
import { ConnectedApps } from "@/components/connected-apps/connected-apps";
import { MyConnections } from "@/components/connections/my-connections";
import { PreferencesPanel } from "@/components/preferences/preferences-panel";
import { PageHeader } from "@/components/ui/page-header";
import { isManager } from "@/lib/auth/scopes";
import { requireMember } from "@/lib/auth/session";

export const metadata: Metadata = { title: "Préférences" };

export default async function PreferencesPage() {
  const member = await requireMember();
  return (
    <>
      <PageHeader title="Préférences" description="Vos réglages personnels, pour vous seul." />
      <div className="space-y-6">
        <PreferencesPanel />
        <MyConnections />
        <ConnectedApps manager={isManager(member.role)} />
      </div>
    </>
  );
}
