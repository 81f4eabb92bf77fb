import { getToolEndpoint } from "@/lib/catalog/api";
import { getCatalogTool } from "@/lib/catalog/detail";
import { handle } from "@/lib/http/handler";

// GET /v1/tools/{key} — one catalog entry (availability and reason) with its schemas
export const GET = handle(getToolEndpoint, async ({ principal, params }) => ({
  data: await getCatalogTool(principal.organizationId, params.key),
}));
