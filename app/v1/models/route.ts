import { handle } from "@/lib/http/handler";
import { listModelsEndpoint, serializeModel } from "@/lib/models/api";
import { modelsForOrganization } from "@/lib/models/service";

// GET /v1/models — the plan's models, default first
export const GET = handle(listModelsEndpoint, async ({ principal }) => ({
  data: (await modelsForOrganization(principal.organizationId)).map(serializeModel),
  next_cursor: null,
}));
