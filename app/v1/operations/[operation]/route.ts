import { getOperationEndpoint, serializeOperation } from "@/lib/operations/api";
import { readOperation } from "@/lib/operations/long";
import { handle } from "@/lib/http/handler";

// GET /v1/operations/{operation} — one operation with its status and evidence; a long one still at work is followed at the service
export const GET = handle(getOperationEndpoint, async ({ principal, params }) => ({
  data: serializeOperation(await readOperation(principal.organizationId, params.operation)),
}));
