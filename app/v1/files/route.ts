import { listFilesEndpoint, serializeFile, uploadFileEndpoint } from "@/lib/files/api";
import { listFiles, uploadFile } from "@/lib/files/service";
import { handle } from "@/lib/http/handler";

// GET /v1/files — files of the organization, newest first; expired ones are gone
export const GET = handle(listFilesEndpoint, async ({ principal, query }) =>
  listFiles(principal.organizationId, query),
);

// POST /v1/files — upload a file (multipart `file`), streamed to disk
export const POST = handle(uploadFileEndpoint, async ({ principal, request }) => ({
  data: serializeFile(await uploadFile(principal.organizationId, request)),
}));
