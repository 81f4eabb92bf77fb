import { deleteAgentEndpoint, getAgentEndpoint, updateAgentEndpoint } from "@/lib/agents/api";
import { assertMayChangeTrace, deleteAgent, getAgent, updateAgent } from "@/lib/agents/service";
import { actorOf } from "@/lib/audit/record";
import { handle } from "@/lib/http/handler";

// GET /v1/agents/{agent} — retrieve an agent
export const GET = handle(getAgentEndpoint, async ({ principal, params }) => ({
  data: await getAgent(principal.organizationId, params.agent),
}));

// PATCH /v1/agents/{agent} — update the fields sent
export const PATCH = handle(updateAgentEndpoint, async ({ principal, params, body }) => {
  assertMayChangeTrace(principal, body);
  return { data: await updateAgent(principal.organizationId, params.agent, body, actorOf(principal)) };
});

// DELETE /v1/agents/{agent} — delete an agent with its documents and their bytes
export const DELETE = handle(deleteAgentEndpoint, async ({ principal, params }) => {
  await deleteAgent(principal.organizationId, params.agent, actorOf(principal));
  return { data: { id: params.agent, deleted: true as const } };
});
