import "server-only";
import OpenAI from "openai";
import { db, type DbOrTx } from "@/lib/db";
import { notFound } from "@/lib/http/errors";
import { encryptSecret } from "@/lib/mcp/secrets";
import { assertAdminUrl, privateOriginsFor } from "@/lib/net/origin-grants";
import { assertPublicUrl, UrlNotAllowedError } from "@/lib/net/ssrf";
import { isoOffset } from "@/lib/time";
import type { ModelProviderObject, ModelProviderTestObject, ModelProviderUpdateBody } from "./schemas";
import {
  environmentSetting,
  organizationProvider,
  providerClient,
  providerSelect,
  storedApiKey,
  type ProviderRow,
} from "./providers";
import { modelsForOrganization } from "./service";

// An organization's own provider settings (console « Modèles »). They take
// precedence over the environment's. The key is encrypted at rest like MCP
// connector tokens, bound to the base URL's origin: it can only ever be
// decrypted to be sent there. It is never served; only its last four characters.

interface PlanProvider {
  provider: string;
  models: { id: string; name: string; endpoint: string | null }[];
}

/** The providers the organization's plan uses, each with its models. */
async function planProviders(organizationId: string, tx: DbOrTx): Promise<PlanProvider[]> {
  const models = await modelsForOrganization(organizationId, tx);
  const settings = await tx.model.findMany({
    where: { id: { in: models.map((m) => m.id) } },
    select: { id: true, settings: true },
  });
  const endpointOf = new Map(
    settings.map((row) => {
      const endpoint = (row.settings as { endpoint?: unknown } | null)?.endpoint;
      return [row.id, typeof endpoint === "string" ? endpoint : null];
    }),
  );
  const byProvider = new Map<string, PlanProvider>();
  for (const model of models) {
    const entry = byProvider.get(model.provider) ?? { provider: model.provider, models: [] };
    entry.models.push({ id: model.id, name: model.name, endpoint: endpointOf.get(model.id) ?? null });
    byProvider.set(model.provider, entry);
  }
  return [...byProvider.values()].sort((a, b) => a.provider.localeCompare(b.provider));
}

function serialize(plan: PlanProvider, row: ProviderRow | null): ModelProviderObject {
  const fromEnv = environmentSetting(plan.provider);
  const envConfigured = Boolean(fromEnv.baseUrl || fromEnv.apiKey);
  return {
    provider: plan.provider,
    models: plan.models.map(({ id, name }) => ({ id, name })),
    source: row ? "organization" : envConfigured ? "environment" : "none",
    base_url: row?.baseUrl ?? null,
    default_base_url: plan.models.find((m) => m.endpoint)?.endpoint ?? null,
    has_api_key: row ? row.apiKeyCiphertext !== null : Boolean(fromEnv.apiKey),
    api_key_hint: row?.apiKeyHint ?? null,
    updated_at: row ? isoOffset(row.updatedAt) : null,
  };
}

async function planProvider(organizationId: string, provider: string, tx: DbOrTx): Promise<PlanProvider> {
  const found = (await planProviders(organizationId, tx)).find((p) => p.provider === provider);
  if (!found) throw notFound("Model provider");
  return found;
}

export async function listProviders(organizationId: string, tx: DbOrTx = db): Promise<ModelProviderObject[]> {
  const plan = await planProviders(organizationId, tx);
  const rows = await tx.modelProvider.findMany({ where: { organizationId }, select: providerSelect });
  return plan.map((p) => serialize(p, rows.find((row) => row.provider === p.provider) ?? null));
}

export async function setProvider(
  organizationId: string,
  provider: string,
  input: ModelProviderUpdateBody,
  tx: DbOrTx = db,
): Promise<ModelProviderObject> {
  const plan = await planProvider(organizationId, provider, tx);
  await assertAdminUrl(organizationId, input.base_url, "base_url", tx);
  const existing = await organizationProvider(organizationId, provider, tx);
  const origin = new URL(input.base_url).origin;
  // A key was given for one origin: a new base URL on another origin drops it unless a new key comes with it.
  const keeps =
    input.api_key === undefined && existing?.apiKeyCiphertext && new URL(existing.baseUrl).origin === origin;
  const key = input.api_key
    ? { apiKeyCiphertext: encryptSecret(input.api_key, origin), apiKeyHint: input.api_key.slice(-4) }
    : keeps
      ? { apiKeyCiphertext: existing.apiKeyCiphertext, apiKeyHint: existing.apiKeyHint }
      : { apiKeyCiphertext: null, apiKeyHint: null };
  const row = await tx.modelProvider.upsert({
    where: { organizationId_provider: { organizationId, provider } },
    create: { organizationId, provider, baseUrl: input.base_url, ...key },
    update: { baseUrl: input.base_url, ...key },
    select: providerSelect,
  });
  return serialize(plan, row);
}

export async function removeProvider(
  organizationId: string,
  provider: string,
  tx: DbOrTx = db,
): Promise<ModelProviderObject> {
  const plan = await planProvider(organizationId, provider, tx);
  await tx.modelProvider.deleteMany({ where: { organizationId, provider } });
  return serialize(plan, null);
}

const TEST_TIMEOUT_MS = 10_000;

type TestResult = Omit<ModelProviderTestObject, "provider" | "duration_ms">;

/** Classifies what the provider client threw, in the result's terms. */
function failure(error: unknown): TestResult {
  const base = { ok: false, model_count: null, http_status: null };
  if (error instanceof OpenAI.APIConnectionTimeoutError)
    return { ...base, result: "timeout", message: `No answer within ${TEST_TIMEOUT_MS / 1000} s.` };
  if (error instanceof OpenAI.APIConnectionError) {
    const cause = (error as { cause?: unknown }).cause;
    if (cause instanceof UrlNotAllowedError) return { ...base, result: "url_not_allowed", message: cause.message };
    return { ...base, result: "unreachable", message: `The provider could not be reached (${error.message}).` };
  }
  if (error instanceof OpenAI.APIError) {
    const unauthorized = error.status === 401 || error.status === 403;
    return {
      ...base,
      result: unauthorized ? "unauthorized" : "protocol",
      http_status: error.status ?? null,
      message: unauthorized
        ? `The provider refused the API key (HTTP ${error.status}).`
        : `The provider answered HTTP ${error.status ?? "?"} to GET /models.`,
    };
  }
  return { ...base, result: "protocol", message: "The provider's answer is not an OpenAI-compatible model list." };
}

/** GET {base_url}/models with the settings in force (the organization's, else the environment's). */
export async function testProvider(
  organizationId: string,
  provider: string,
  tx: DbOrTx = db,
): Promise<ModelProviderTestObject> {
  const plan = await planProvider(organizationId, provider, tx);
  const row = await organizationProvider(organizationId, provider, tx);
  const started = performance.now();
  const done = (result: TestResult): ModelProviderTestObject => ({
    provider,
    ...result,
    duration_ms: Math.round(performance.now() - started),
  });
  const fromEnv = environmentSetting(provider);
  const key = row ? storedApiKey(row) : (fromEnv.apiKey ?? null);
  const baseUrl =
    row?.baseUrl ?? fromEnv.baseUrl ?? (fromEnv.apiKey ? plan.models.find((m) => m.endpoint)?.endpoint : undefined);
  const none = { ok: false, model_count: null, http_status: null } as const;
  if (!baseUrl)
    return done({ ...none, result: "not_configured", message: "No base URL or API key is set for this provider." });
  if (key === "unreadable")
    return done({
      ...none,
      result: "unauthorized",
      message: "The stored API key can no longer be decrypted (the encryption key changed): set it again.",
    });
  const privateOrigins = await privateOriginsFor(organizationId, tx);
  try {
    await assertPublicUrl(baseUrl, { privateOrigins });
  } catch (error) {
    if (error instanceof UrlNotAllowedError)
      return done({ ...none, result: "url_not_allowed", message: error.message });
    throw error;
  }
  const client = providerClient({ baseUrl, apiKey: key, privateOrigins }, TEST_TIMEOUT_MS, 0);
  try {
    const page = await client.models.list();
    if (!Array.isArray(page.data)) return done(failure(null));
    return done({
      ok: true,
      result: "ok",
      message: `The provider answered with ${page.data.length} model(s).`,
      model_count: page.data.length,
      http_status: 200,
    });
  } catch (error) {
    return done(failure(error));
  }
}
