import { createAgentEndpoint, listAgentsEndpoint } from "@/lib/agents/api";
import { assertMayChangeTrace, createAgent, listAgents } from "@/lib/agents/service";
import { actorOf } from "@/lib/audit/record";
import { handle } from "@/lib/http/handler";

// GET /v1/agents — list agents, newest first
export const GET = handle(listAgentsEndpoint, async ({ principal, query }) =>
  listAgents(principal.organizationId, query),
);

// POST /v1/agents — create an agent
export const POST = handle(createAgentEndpoint, async ({ principal, body }) => {
  assertMayChangeTrace(principal, body);
  return { data: await createAgent(principal.organizationId, body, actorOf(principal)) };
});
