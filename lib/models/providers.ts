import "server-only";
import OpenAI from "openai";
import { z } from "zod";
import { db, type DbOrTx } from "@/lib/db";
import { env, type ProviderSetting } from "@/lib/env";
import { ApiError } from "@/lib/http/errors";
import { pinnedFetch } from "@/lib/net/pinned-fetch";
import { modelsForOrganization } from "./service";

// Where a model's calls go. Each model names its provider (`mistral`,
// `anthropic`…); the operator configures providers by environment. A provider
// is configured when it has a base URL of its own, or a key (then the model's
// published endpoint is used). Provider URLs are the operator's choice, so they
// follow the network policy of admin-chosen destinations: loopback or private
// addresses only for an origin in GUICHET_PRIVATE_ORIGINS.

const ModelSettings = z
  .object({ endpoint: z.string().url().optional(), api_model: z.string().min(1).optional() })
  .catch({});

export interface ModelRoute {
  modelId: string;
  modelName: string;
  provider: string;
  baseUrl: string;
  apiKey: string | null;
  /** The model's name on the provider's API. */
  apiModel: string;
  structuredOutput: boolean;
}

function settingFor(provider: string): ProviderSetting {
  const own = env.modelProviders[provider] ?? {};
  return { baseUrl: own.baseUrl ?? env.GUICHET_MODEL_BASE_URL, apiKey: own.apiKey ?? env.GUICHET_MODEL_API_KEY };
}

/** What to set for a provider, in words an operator acts on. */
function configurationHint(provider: string): string {
  const name = provider.toUpperCase().replace(/[^A-Z0-9]/g, "");
  return `set GUICHET_MODEL_${name}_API_KEY (or GUICHET_MODEL_${name}_BASE_URL for a self-hosted OpenAI-compatible server), or GUICHET_MODEL_BASE_URL / GUICHET_MODEL_API_KEY for every provider`;
}

/**
 * The route of the model a run of this agent uses (the agent's, or the plan's
 * default); `503 model_provider_unavailable` when its provider is not configured.
 */
export async function modelRouteFor(
  organizationId: string,
  agentModelId: string | null,
  tx: DbOrTx = db,
): Promise<ModelRoute> {
  const modelId =
    agentModelId ?? (await modelsForOrganization(organizationId, tx)).find((model) => model.isDefault)?.id;
  const model = modelId
    ? await tx.model.findUnique({
        where: { id: modelId },
        select: { id: true, name: true, provider: true, structuredOutput: true, settings: true },
      })
    : null;
  if (!model)
    throw new ApiError("model_provider_unavailable", "This agent has no model to run: its plan has no default model.");
  const settings = ModelSettings.parse(model.settings);
  const setting = settingFor(model.provider);
  const baseUrl = setting.baseUrl ?? (setting.apiKey ? settings.endpoint : undefined);
  if (!baseUrl) {
    throw new ApiError(
      "model_provider_unavailable",
      `No provider is configured for ${model.name} (provider "${model.provider}"): ${configurationHint(model.provider)}.`,
      {
        reason: { model: model.id, provider: model.provider },
      },
    );
  }
  return {
    modelId: model.id,
    modelName: model.name,
    provider: model.provider,
    baseUrl,
    apiKey: setting.apiKey ?? null,
    apiModel: settings.api_model ?? model.name,
    structuredOutput: model.structuredOutput,
  };
}

/**
 * The provider client. One retry, which the client makes only where it is safe
 * (connection errors, 408/409/429/5xx): a model call has no side effect, and
 * every tool call of its answer runs after it returned.
 */
export function providerClient(route: ModelRoute, timeoutMs: number): OpenAI {
  const pinned = pinnedFetch({ privateOrigins: env.privateOrigins });
  return new OpenAI({
    baseURL: route.baseUrl,
    // Local servers (vLLM, Ollama, model-sim) take no key; the client requires a value all the same.
    apiKey: route.apiKey ?? "none",
    timeout: timeoutMs,
    maxRetries: 1,
    fetch: (url, init) => pinned(url instanceof Request ? url.url : url, init),
  });
}
