import { createAgentEndpoint, listAgentsEndpoint } from "@/lib/agents/api";
import { createAgent, listAgents } from "@/lib/agents/service";
import { handle } from "@/lib/http/handler";

// GET /v1/agents — list agents, newest first
export const GET = handle(listAgentsEndpoint, async ({ principal, query }) =>
  listAgents(principal.organizationId, query),
);

// POST /v1/agents — create an agent
export const POST = handle(createAgentEndpoint, async ({ principal, body }) => ({
  data: await createAgent(principal.organizationId, body),
}));
