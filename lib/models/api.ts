import { MANAGER_ROLES } from "@/lib/auth/scopes";
import { z } from "zod";
import { defineEndpoint } from "@/lib/http/endpoint";
import {
  ModelObject,
  ModelProviderObject,
  ModelProviderParams,
  ModelProviderTestObject,
  ModelProviderUpdateBody,
} from "./schemas";
import type { PlanModelView } from "./service";

export * from "./schemas";

export function serializeModel(model: PlanModelView): ModelObject {
  return {
    id: model.id,
    name: model.name,
    provider: model.provider,
    structured_output: model.structuredOutput,
    default: model.isDefault,
  };
}

export const listModelsEndpoint = defineEndpoint({
  method: "GET",
  path: "/v1/models",
  tag: "Models",
  summary: "List the models of the organization's plan",
  auth: "both",
  scopes: ["agents:read", "agents:write", "runs:read", "tools:read"],
  response: z.object({ data: z.array(ModelObject), next_cursor: z.null() }),
});

// /v1/model_providers: owners and admins, in the console.

export const listModelProvidersEndpoint = defineEndpoint({
  method: "GET",
  path: "/v1/model_providers",
  tag: "Models",
  summary: "The providers of the plan's models and where their settings come from (keys are never served)",
  auth: "session",
  roles: [...MANAGER_ROLES],
  response: z.object({ data: z.array(ModelProviderObject), next_cursor: z.null() }),
  errors: ["forbidden"],
});

export const configureModelProviderEndpoint = defineEndpoint({
  method: "PUT",
  path: "/v1/model_providers/{provider}",
  tag: "Models",
  summary: "Set the organization's base URL and API key for a provider; they take precedence over the environment",
  auth: "session",
  roles: [...MANAGER_ROLES],
  params: ModelProviderParams,
  body: ModelProviderUpdateBody,
  response: z.object({ data: ModelProviderObject }),
  errors: ["forbidden", "not_found", "url_not_allowed"],
});

export const deleteModelProviderEndpoint = defineEndpoint({
  method: "DELETE",
  path: "/v1/model_providers/{provider}",
  tag: "Models",
  summary: "Remove the organization's settings for a provider (the environment's apply again)",
  auth: "session",
  roles: [...MANAGER_ROLES],
  params: ModelProviderParams,
  response: z.object({ data: ModelProviderObject }),
  errors: ["forbidden", "not_found"],
});

export const testModelProviderEndpoint = defineEndpoint({
  method: "POST",
  path: "/v1/model_providers/{provider}/test",
  tag: "Models",
  summary: "List the provider's models with the settings in force, and say how it went",
  auth: "session",
  roles: [...MANAGER_ROLES],
  params: ModelProviderParams,
  response: z.object({ data: ModelProviderTestObject }),
  errors: ["forbidden", "not_found"],
});
