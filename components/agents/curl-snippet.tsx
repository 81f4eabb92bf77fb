"use client";

import { CopyButton, usePageOrigin } from "@/components/ui/copy-button";
import { createRunEndpoint } from "@/lib/runs/api";
import { getAgentEndpoint, updateAgentEndpoint } from "@/lib/agents/api";
import { endpointUrl } from "@/lib/client/call";

/** The API calls for this agent, ready to paste; the key stays a variable, never a real secret. */
export function CurlSnippet({ agentId }: { agentId: string }) {
  const origin = usePageOrigin();
  // Paths and methods come from the endpoint declarations, so the snippet cannot drift from the API.
  const agentUrl = `${origin}${endpointUrl(getAgentEndpoint, { agent: agentId })}`;
  const snippet = [
    `# Lire l’agent`,
    `curl ${agentUrl} \\`,
    `  -H "Authorization: Bearer $GUICHET_API_KEY"`,
    ``,
    `# Changer sa température`,
    `curl -X ${updateAgentEndpoint.method} ${agentUrl} \\`,
    `  -H "Authorization: Bearer $GUICHET_API_KEY" \\`,
    `  -H "Content-Type: application/json" \\`,
    `  -d '{"temperature": 0.2}'`,
    ``,
    `# Lancer un run`,
    `curl ${origin}${endpointUrl(createRunEndpoint)} \\`,
    `  -H "Authorization: Bearer $GUICHET_API_KEY" \\`,
    `  -H "Content-Type: application/json" \\`,
    `  -d '{"agent": "${agentId}"}'`,
  ].join("\n");
  return (
    <section aria-labelledby="snippet-title" className="space-y-2">
      <div className="flex items-center justify-between">
        <h3 id="snippet-title" className="text-sm font-semibold">
          Depuis l’API
        </h3>
        <CopyButton text={snippet} confirmation="Commande copiée." />
      </div>
      <pre
        data-testid="curl-snippet"
        tabIndex={0}
        className="overflow-x-auto rounded-md bg-slate-900 p-3 text-xs leading-relaxed text-slate-100"
      >
        {snippet}
      </pre>
    </section>
  );
}
