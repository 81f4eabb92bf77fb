import type { Metadata } from "next";
import { PreferencesPanel } from "@/components/preferences/preferences-panel";
import { PageHeader } from "@/components/ui/page-header";
import { requireMember } from "@/lib/auth/session";

export const metadata: Metadata = { title: "Préférences" };

export default async function PreferencesPage() {
  await requireMember();
  return (
    <>
      <PageHeader title="Préférences" description="Vos réglages personnels, pour vous seul." />
      <PreferencesPanel />
    </>
  );
}
