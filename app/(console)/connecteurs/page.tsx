import type { Metadata } from "next";
import { NotBuiltYet, PageHeader } from "@/components/ui/page-header";

export const metadata: Metadata = { title: "Connecteurs MCP" };

export default function Page() {
  return (
    <>
      <PageHeader title="Connecteurs MCP" />
      <NotBuiltYet what="L'ajout, la synchronisation et la revue des serveurs MCP arrivent avec le ticket « Catalogue et connecteurs MCP »." />
    </>
  );
}
