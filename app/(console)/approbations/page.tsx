import type { Metadata } from "next";
import { NotBuiltYet, PageHeader } from "@/components/ui/page-header";

export const metadata: Metadata = { title: "Approbations" };

export default function Page() {
  return (
    <>
      <PageHeader title="Approbations" />
      <NotBuiltYet what="La boîte d'approbation et l'écran de décision arrivent avec le ticket « Propositions et approbations »." />
    </>
  );
}
