import type { Metadata } from "next";
import { NotBuiltYet, PageHeader } from "@/components/ui/page-header";

export const metadata: Metadata = { title: "Agents" };

export default function Page() {
  return (
    <>
      <PageHeader title="Agents" />
      <NotBuiltYet what="La gestion des agents (tiroir d'édition, outils, documents) arrive avec le ticket « Agents »." />
    </>
  );
}
