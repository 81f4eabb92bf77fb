import type { Metadata } from "next";
import { NotBuiltYet, PageHeader } from "@/components/ui/page-header";

export const metadata: Metadata = { title: "Outils" };

export default function Page() {
  return (
    <>
      <PageHeader title="Outils" />
      <NotBuiltYet what="Le catalogue d'outils et leurs contrats arrivent avec le ticket « Catalogue et connecteurs MCP »." />
    </>
  );
}
