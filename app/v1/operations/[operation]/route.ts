import { getOperationEndpoint, serializeOperation } from "@/lib/operations/api";
import { getOperation } from "@/lib/operations/service";
import { handle } from "@/lib/http/handler";

// GET /v1/operations/{operation} — one operation with its status and evidence
export const GET = handle(getOperationEndpoint, async ({ principal, params }) => ({
  data: serializeOperation(await getOperation(principal.organizationId, params.operation)),
}));
