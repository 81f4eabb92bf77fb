import { deleteFileEndpoint, getFileEndpoint, serializeFile } from "@/lib/files/api";
import { deleteFile, findFile } from "@/lib/files/service";
import { handle } from "@/lib/http/handler";

// GET /v1/files/{file} — a file's description
export const GET = handle(getFileEndpoint, async ({ principal, params }) => ({
  data: serializeFile(await findFile(principal.organizationId, params.file)),
}));

// DELETE /v1/files/{file} — delete a plain file (a document answers 409 file_in_use)
export const DELETE = handle(deleteFileEndpoint, async ({ principal, params }) => {
  await deleteFile(principal.organizationId, params.file);
  return { data: { id: params.file, deleted: true as const } };
});
