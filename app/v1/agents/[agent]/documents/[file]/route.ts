import { deleteDocumentEndpoint } from "@/lib/agents/api";
import { deleteDocument } from "@/lib/files/service";
import { handle } from "@/lib/http/handler";

// DELETE /v1/agents/{agent}/documents/{file} — delete a knowledge document and its bytes
export const DELETE = handle(deleteDocumentEndpoint, async ({ principal, params }) => {
  await deleteDocument(principal.organizationId, params.agent, params.file);
  return { data: { id: params.file, deleted: true as const } };
});
