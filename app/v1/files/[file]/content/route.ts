import { getFileContentEndpoint } from "@/lib/files/api";
import { fileContentResponse } from "@/lib/files/service";
import { handle } from "@/lib/http/handler";

// GET /v1/files/{file}/content — download the bytes
export const GET = handle(getFileContentEndpoint, async ({ principal, params }) =>
  fileContentResponse(principal.organizationId, params.file),
);
