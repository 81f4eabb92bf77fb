import type { Metadata } from "next";
import { NotBuiltYet, PageHeader } from "@/components/ui/page-header";

export const metadata: Metadata = { title: "Journal" };

export default function Page() {
  return (
    <>
      <PageHeader title="Journal" />
      <NotBuiltYet what="Les runs, leurs étapes et la télémétrie arrivent avec le ticket « Frontière typée »." />
    </>
  );
}
