import type { Metadata } from "next";
import { NotBuiltYet, PageHeader } from "@/components/ui/page-header";

export const metadata: Metadata = { title: "Opérations" };

export default function Page() {
  return (
    <>
      <PageHeader title="Opérations" />
      <NotBuiltYet what="Les opérations à l'issue inconnue arrivent avec le ticket « Propositions et approbations »." />
    </>
  );
}
