import { handle } from "@/lib/http/handler";
import { testModelProviderEndpoint } from "@/lib/models/api";
import { testProvider } from "@/lib/models/provider-settings";

// POST /v1/model_providers/{provider}/test — list the provider's models with the settings in force
export const POST = handle(testModelProviderEndpoint, async ({ principal, params }) => ({
  data: await testProvider(principal.organizationId, params.provider),
}));
