import "server-only";
import OpenAI from "openai";
import { z } from "zod";
import { db, type DbOrTx } from "@/lib/db";
import { WatchedCache } from "@/lib/db/changes";
import { findFirstOnDriver } from "@/lib/db/driver";
import { env, type ProviderSetting } from "@/lib/env";
import { ApiError } from "@/lib/http/errors";
import { decryptSecret } from "@/lib/mcp/secrets";
import { privateOriginsFor } from "@/lib/net/origin-grants";
import { pinnedFetch } from "@/lib/net/pinned-fetch";
import { modelsForOrganization } from "./service";
import { withTraceHeaders } from "@/lib/observability/tracing";

// Where a model's calls go. Each model names its provider (`mistral`,
// `anthropic`…); the operator configures providers by environment. A provider
// is configured when it has a base URL of its own, or a key (then the model's
// published endpoint is used). An organization admin may configure a provider
// for the organization (lib/models/provider-settings.ts): that wins over the
// environment. Provider URLs are the operator's choice, so they
// follow the network policy of admin-chosen destinations: loopback or private
// addresses only for an origin GUICHET_PRIVATE_ORIGINS grants to the organization.

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
  /** The private origins granted to the run's organization: the provider may be on one of them. */
  privateOrigins: readonly string[];
}

// Models change only with the catalog of plans (the "tenancy" topic): each managed run reads its model from here.
const modelRows = new WatchedCache<
  string,
  { id: string; name: string; provider: string; structuredOutput: boolean; settings: unknown }
>(["tenancy"]);

export const providerSelect = {
  provider: true,
  baseUrl: true,
  apiKeyCiphertext: true,
  apiKeyHint: true,
  updatedAt: true,
} as const;

export interface ProviderRow {
  provider: string;
  baseUrl: string;
  apiKeyCiphertext: string | null;
  apiKeyHint: string | null;
  updatedAt: Date;
}

/** The environment's settings for a provider: its own variables, else the catch-all ones. */
export function environmentSetting(provider: string): ProviderSetting {
  const own = env.modelProviders[provider] ?? {};
  return { baseUrl: own.baseUrl ?? env.GUICHET_MODEL_BASE_URL, apiKey: own.apiKey ?? env.GUICHET_MODEL_API_KEY };
}

export function organizationProvider(
  organizationId: string,
  provider: string,
  tx: DbOrTx = db,
): Promise<ProviderRow | null> {
  const viaPrisma = () =>
    tx.modelProvider.findUnique({
      where: { organizationId_provider: { organizationId, provider } },
      select: providerSelect,
    });
  // Every managed run reads its provider's row: on the driver outside a transaction (lib/db/driver.ts).
  return tx === db
    ? findFirstOnDriver("ModelProvider", providerSelect, { organizationId, provider }, viaPrisma)
    : viaPrisma();
}

/** The stored key, decrypted for its base URL's origin; null when none or no longer readable (a changed encryption key). */
export function storedApiKey(row: Pick<ProviderRow, "baseUrl" | "apiKeyCiphertext">): string | null | "unreadable" {
  if (!row.apiKeyCiphertext) return null;
  try {
    return decryptSecret(row.apiKeyCiphertext, new URL(row.baseUrl).origin);
  } catch {
    return "unreadable";
  }
}

/** What to set for a provider, in words an operator acts on. */
function configurationHint(provider: string): string {
  const name = provider.toUpperCase().replace(/[^A-Z0-9]/g, "");
  return `an organization admin sets its base URL and API key on the console page « Modèles » (PUT /v1/model_providers/${provider}), or the operator sets GUICHET_MODEL_${name}_API_KEY (or GUICHET_MODEL_${name}_BASE_URL for a self-hosted OpenAI-compatible server), or GUICHET_MODEL_BASE_URL / GUICHET_MODEL_API_KEY for every provider`;
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
  const load = (id: string) =>
    tx.model.findUnique({
      where: { id },
      select: { id: true, name: true, provider: true, structuredOutput: true, settings: true },
    });
  const model = modelId ? await (tx === db ? modelRows.get(modelId, () => load(modelId)) : load(modelId)) : null;
  if (!model)
    throw new ApiError("model_provider_unavailable", "This agent has no model to run: its plan has no default model.");
  const settings = ModelSettings.parse(model.settings);
  // The organization's own settings first, then the environment's.
  const own = await organizationProvider(organizationId, model.provider, tx);
  const ownKey = own ? storedApiKey(own) : null;
  if (ownKey === "unreadable")
    throw new ApiError(
      "model_provider_unavailable",
      `The stored API key of provider "${model.provider}" can no longer be decrypted (the encryption key changed): set it again on the console page « Modèles ».`,
      { reason: { model: model.id, provider: model.provider } },
    );
  const setting = own ? { baseUrl: own.baseUrl, apiKey: ownKey ?? undefined } : environmentSetting(model.provider);
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
    privateOrigins: await privateOriginsFor(organizationId, tx),
  };
}

/**
 * The provider client. One retry, which the client makes only where it is safe
 * (connection errors, 408/409/429/5xx): a model call has no side effect, and
 * every tool call of its answer runs after it returned.
 */
export function providerClient(
  route: Pick<ModelRoute, "baseUrl" | "apiKey" | "privateOrigins">,
  timeoutMs: number,
  maxRetries = 1,
): OpenAI {
  const pinned = pinnedFetch({ privateOrigins: route.privateOrigins });
  return new OpenAI({
    baseURL: route.baseUrl,
    // Local servers (vLLM, Ollama, model-sim) take no key; the client requires a value all the same.
    apiKey: route.apiKey ?? "none",
    timeout: timeoutMs,
    maxRetries,
    // The run's trace goes on to the provider (W3C traceparent), when tracing is on.
    fetch: (url, init) => pinned(url instanceof Request ? url.url : url, withTraceHeaders(init)),
  });
}
