import type { Metadata } from "next";
import { ToolCatalog } from "@/components/catalog/tool-catalog";
import { PageHeader } from "@/components/ui/page-header";

export const metadata: Metadata = { title: "Outils" };

export default function ToolsPage() {
  return (
    <>
      <PageHeader
        title="Outils"
        description="Tout ce que votre organisation peut confier à un agent, et pourquoi le reste est refusé. Les outils marqués « toujours actif » sont portés par chaque agent ; les outils qui écrivent des données ne le sont jamais sans que vous les ajoutiez."
      />
      <ToolCatalog />
    </>
  );
}
