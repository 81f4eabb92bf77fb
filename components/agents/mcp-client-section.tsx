"use client";

import { CopyButton, usePageOrigin } from "@/components/ui/copy-button";

/** How each tested MCP client is pointed at the agent; the key stays a variable, never a real secret. */
function clientSnippets(url: string): { client: string; code: string }[] {
  const headers = "{ authorization: `Bearer ${process.env.GUICHET_API_KEY}` }";
  return [
    {
      client: "SDK MCP officiel (@modelcontextprotocol/sdk)",
      code: `const transport = new StreamableHTTPClientTransport(new URL("${url}"), {\n  requestInit: { headers: ${headers} },\n});\nawait new Client({ name: "mon-agent", version: "1.0.0" }).connect(transport);`,
    },
    {
      client: "OpenAI Agents (@openai/agents)",
      code: `const guichet = new MCPServerStreamableHttp({\n  name: "guichet",\n  url: "${url}",\n  requestInit: { headers: ${headers} },\n});`,
    },
    {
      client: "Vercel AI SDK (@ai-sdk/mcp)",
      code: `const client = await createMCPClient({\n  transport: { type: "http", url: "${url}", headers: ${headers} },\n});\nconst tools = await client.tools();`,
    },
    {
      client: "LangChain (@langchain/mcp-adapters)",
      code: `const client = new MultiServerMCPClient({\n  mcpServers: { guichet: { transport: "http", url: "${url}", headers: ${headers} } },\n});\nconst tools = await client.getTools();`,
    },
  ];
}

/** The agent's MCP endpoint and ready-to-paste client configurations. */
export function McpClientSection({ agentId }: { agentId: string }) {
  const origin = usePageOrigin();
  const url = `${origin}/mcp/agents/${agentId}`;
  const writeUrl = `${url}?capabilities=read_write`;
  return (
    <section aria-labelledby="mcp-client-title" className="space-y-3" data-testid="mcp-client-section">
      <h3 id="mcp-client-title" className="text-sm font-semibold">
        Connecter un client MCP
      </h3>
      <p className="text-sm text-slate-600">
        Une session MCP est un run de cet agent, avec une clé API portant le droit <code>runs:write</code>. En lecture
        par défaut ; ajoutez <code>?capabilities=read_write</code> pour que les écritures deviennent des propositions à
        approuver.
      </p>
      <p className="text-sm text-slate-600">
        Sans clé : un client MCP qui se connecte par OAuth (Claude, ChatGPT, VS Code, <code>mcp-remote</code>) n’a
        besoin que de cette adresse. Chaque membre s’y connecte avec son compte Guichet et autorise l’application ; elle
        agit alors en son nom (Préférences › Applications connectées).
      </p>
      <div className="flex items-center gap-2">
        <code data-testid="mcp-url" className="flex-1 overflow-x-auto rounded-md bg-slate-100 px-2 py-1 text-xs">
          {url}
        </code>
        <CopyButton text={url} confirmation="Adresse copiée." label="Copier l’adresse" />
      </div>
      {clientSnippets(writeUrl).map(({ client, code }) => (
        <div key={client} className="space-y-1">
          <div className="flex items-center justify-between">
            <h4 className="text-xs font-medium text-slate-700">{client}</h4>
            <CopyButton
              text={code}
              confirmation="Configuration copiée."
              ariaLabel={`Copier la configuration ${client}`}
            />
          </div>
          <pre
            tabIndex={0}
            className="overflow-x-auto rounded-md bg-slate-900 p-3 text-xs leading-relaxed text-slate-100"
          >
            {code}
          </pre>
        </div>
      ))}
    </section>
  );
}
