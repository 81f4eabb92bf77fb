import type { Metadata } from "next";
import { NotBuiltYet, PageHeader } from "@/components/ui/page-header";

export const metadata: Metadata = { title: "Politiques" };

export default function Page() {
  return (
    <>
      <PageHeader title="Politiques" />
      <NotBuiltYet what="La table de politique arrive avec le ticket « Propositions et approbations »." />
    </>
  );
}
