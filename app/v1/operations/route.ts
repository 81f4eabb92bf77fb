import { listOperationsEndpoint, serializeOperation } from "@/lib/operations/api";
import { listOperations } from "@/lib/operations/service";
import { handle } from "@/lib/http/handler";
import { page } from "@/lib/http/validation";

// GET /v1/operations — operations, newest first, filtered by status and run
export const GET = handle(listOperationsEndpoint, async ({ principal, query }) =>
  page(await listOperations(principal.organizationId, query), query.limit, serializeOperation),
);
