import type { Metadata } from "next";
import { ApprovalInbox } from "@/components/approvals/inbox";
import { PageHeader } from "@/components/ui/page-header";

export const metadata: Metadata = { title: "Approbations" };

export default function ApprovalsPage() {
  return (
    <>
      <PageHeader
        title="Approbations"
        description="Chaque écriture qu’un agent veut faire attend ici, décrite par le service lui-même : ce qui change, pour qui, pour combien. Le silence ne vaut jamais accord : sans décision, la proposition expire."
      />
      <ApprovalInbox />
    </>
  );
}
