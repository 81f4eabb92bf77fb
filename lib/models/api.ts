import { z } from "zod";
import { defineEndpoint } from "@/lib/http/endpoint";
import { ModelObject } from "./schemas";
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
