"use client";

import { Webhook } from "lucide-react";
import { useState } from "react";
import { Button } from "@/components/ui/button";
import { CopyButton } from "@/components/ui/copy-button";
import { EmptyState } from "@/components/ui/empty-state";
import { QueryState } from "@/components/ui/query-state";
import { EndpointCard } from "./endpoint-card";
import { EndpointForm } from "./endpoint-form";
import { useWebhookEndpoints } from "./queries";
import { Card } from "@/components/ui/card";

/** The signing secret, once: after creation or « Renouveler le secret ». Never fetched again. */
function SecretOnce({ revealed, onDone }: { revealed: { url: string; secret: string }; onDone: () => void }) {
  return (
    <div className="mt-4 space-y-3" data-testid="webhook-secret">
      <p className="text-sm">
        Secret de signature de <span className="font-mono break-all">{revealed.url}</span>. Copiez-le maintenant : il ne
        sera plus jamais affiché.
      </p>
      <code className="block rounded bg-slate-100 p-2 text-xs break-all">{revealed.secret}</code>
      <div className="flex gap-2">
        <CopyButton text={revealed.secret} confirmation="Secret copié." />
        <Button variant="ghost" onClick={onDone}>
          J’ai copié le secret
        </Button>
      </div>
      <p className="text-xs text-slate-500">
        Vérifiez chaque livraison avec ce secret selon Standard Webhooks (en-têtes webhook-id, webhook-timestamp,
        webhook-signature).
      </p>
    </div>
  );
}

export function WebhooksPanel() {
  const endpoints = useWebhookEndpoints();
  const [revealed, setRevealed] = useState<{ url: string; secret: string }>();

  return (
    <div className="grid gap-8 lg:grid-cols-[minmax(0,1fr)_24rem]">
      <section aria-labelledby="endpoints-title">
        <h2 id="endpoints-title" className="sr-only">
          Webhooks existants
        </h2>
        <QueryState
          query={endpoints}
          isEmpty={(list) => list.length === 0}
          empty={
            <EmptyState title="Aucun webhook">
              Ajoutez une URL pour recevoir les propositions, décisions et exécutions au moment où elles arrivent.
            </EmptyState>
          }
        >
          {(list) => (
            <ul className="space-y-4">
              {list.map((endpoint) => (
                <EndpointCard key={endpoint.id} endpoint={endpoint} onSecret={setRevealed} />
              ))}
            </ul>
          )}
        </QueryState>
      </section>
      <Card as="section" className="h-fit" aria-labelledby="new-webhook-title">
        <h2 id="new-webhook-title" className="flex items-center gap-2 font-semibold">
          <Webhook size={16} /> {revealed ? "Secret de signature" : "Nouveau webhook"}
        </h2>
        {revealed ? (
          <SecretOnce revealed={revealed} onDone={() => setRevealed(undefined)} />
        ) : (
          <EndpointForm onCreated={setRevealed} />
        )}
      </Card>
    </div>
  );
}
