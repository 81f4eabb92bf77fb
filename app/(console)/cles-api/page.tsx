import type { Metadata } from "next";
import { ApiKeysPanel } from "@/components/api-keys/api-keys-panel";
import { PageHeader } from "@/components/ui/page-header";

export const metadata: Metadata = { title: "Clés API" };

export default function ApiKeysPage() {
  return (
    <>
      <PageHeader
        title="Clés API"
        description="Une clé donne à un programme les droits que vous cochez, rien de plus. Elle ne peut jamais approuver une proposition : seule une personne connectée le peut."
      />
      <ApiKeysPanel />
    </>
  );
}
