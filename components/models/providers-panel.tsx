"use client";

import { EmptyState } from "@/components/ui/empty-state";
import { QueryState } from "@/components/ui/query-state";
import { ProviderCard } from "./provider-card";
import { useModelProviders } from "./queries";

/** The « Modèles » page: one card per provider of the plan's models. */
export function ProvidersPanel() {
  const providers = useModelProviders();
  return (
    <QueryState
      query={providers}
      isEmpty={(list) => list.length === 0}
      empty={<EmptyState title="Aucun modèle">Le plan de votre organisation ne comprend aucun modèle.</EmptyState>}
    >
      {(list) => (
        <div className="grid gap-4 lg:grid-cols-2">
          {list.map((provider) => (
            <ProviderCard key={provider.provider} provider={provider} />
          ))}
        </div>
      )}
    </QueryState>
  );
}
