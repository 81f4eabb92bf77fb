import { listToolsEndpoint } from "@/lib/catalog/api";
import { listCatalog } from "@/lib/catalog/service";
import { handle } from "@/lib/http/handler";

// GET /v1/tools — the catalog, available or not with the reason
export const GET = handle(listToolsEndpoint, async ({ principal }) => ({
  data: await listCatalog(principal.organizationId),
  next_cursor: null,
}));
