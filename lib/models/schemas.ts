import { z } from "zod";
import { httpUrl } from "@/lib/http/http-url";

// Models' zod schemas and types: safe for the browser (no server import).

export const ModelObject = z.object({
  id: z.string(),
  name: z.string(),
  provider: z.string(),
  structured_output: z.boolean(),
  default: z.boolean(),
});
export type ModelObject = z.infer<typeof ModelObject>;

// Model providers an organization configures itself (console « Modèles »).

export const ModelProviderParams = z.object({ provider: z.string() });

const BaseUrl = httpUrl({ credentials: "refused" });

export const ModelProviderUpdateBody = z.strictObject({
  base_url: BaseUrl,
  /** A new key; null removes it. Absent keeps the stored one (if the base URL keeps its origin). */
  api_key: z.string().trim().min(1).max(4096).nullable().optional(),
});
export type ModelProviderUpdateBody = z.infer<typeof ModelProviderUpdateBody>;

export const ModelProviderObject = z.object({
  provider: z.string(),
  models: z.array(z.object({ id: z.string(), name: z.string() })),
  /** Where the provider's settings come from: the organization's own, the environment's, or none. */
  source: z.enum(["organization", "environment", "none"]),
  /** The organization's base URL (environment values are not served). */
  base_url: z.string().nullable(),
  /** The models' published endpoint, a starting point for base_url. */
  default_base_url: z.string().nullable(),
  has_api_key: z.boolean(),
  /** The stored key's last four characters. */
  api_key_hint: z.string().nullable(),
  updated_at: z.string().nullable(),
});
export type ModelProviderObject = z.infer<typeof ModelProviderObject>;

export const ModelProviderTestObject = z.object({
  provider: z.string(),
  ok: z.boolean(),
  result: z.enum(["ok", "not_configured", "url_not_allowed", "unauthorized", "unreachable", "timeout", "protocol"]),
  message: z.string(),
  /** How many models the provider listed. */
  model_count: z.number().int().nullable(),
  http_status: z.number().int().nullable(),
  duration_ms: z.number().int(),
});
export type ModelProviderTestObject = z.infer<typeof ModelProviderTestObject>;
