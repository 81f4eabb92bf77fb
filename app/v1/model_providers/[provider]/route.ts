import { handle } from "@/lib/http/handler";
import { deleteModelProviderEndpoint, configureModelProviderEndpoint } from "@/lib/models/api";
import { removeProvider, setProvider } from "@/lib/models/provider-settings";

// PUT /v1/model_providers/{provider} — the organization's base URL and key for a provider
export const PUT = handle(configureModelProviderEndpoint, async ({ principal, params, body }) => ({
  data: await setProvider(principal.organizationId, params.provider, body),
}));

// DELETE /v1/model_providers/{provider} — back to the environment's settings
export const DELETE = handle(deleteModelProviderEndpoint, async ({ principal, params }) => ({
  data: await removeProvider(principal.organizationId, params.provider),
}));
