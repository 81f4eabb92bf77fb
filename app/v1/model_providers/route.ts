import { handle } from "@/lib/http/handler";
import { listModelProvidersEndpoint } from "@/lib/models/api";
import { listProviders } from "@/lib/models/provider-settings";

// GET /v1/model_providers — the plan's providers and where their settings come from
export const GET = handle(listModelProvidersEndpoint, async ({ principal }) => ({
  data: await listProviders(principal.organizationId),
  next_cursor: null,
}));
