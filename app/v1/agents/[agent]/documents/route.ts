import { listDocumentsEndpoint, uploadDocumentEndpoint } from "@/lib/agents/api";
import { assertAgentExists } from "@/lib/agents/service";
import { serializeFile } from "@/lib/files/api";
import { listFiles, uploadFile } from "@/lib/files/service";
import { handle } from "@/lib/http/handler";

// GET /v1/agents/{agent}/documents — the agent's knowledge documents
export const GET = handle(listDocumentsEndpoint, async ({ principal, params, query }) => {
  await assertAgentExists(principal.organizationId, params.agent);
  return listFiles(principal.organizationId, query, { agentId: params.agent });
});

// POST /v1/agents/{agent}/documents — upload a knowledge document (multipart `file`)
export const POST = handle(uploadDocumentEndpoint, async ({ principal, params, request }) => ({
  data: serializeFile(await uploadFile(principal.organizationId, request, { agentId: params.agent })),
}));
