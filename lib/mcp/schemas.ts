import { z } from "zod";
import { httpUrl } from "@/lib/http/http-url";
import { ReplayReport } from "@/lib/traces/schemas";
import { CatalogEntryObject } from "@/lib/catalog/schemas";

// /v1/mcp_servers: connectors, their sync and the per-tool review. Owners and
// admins only, in the console (API keys have no connector scope).

export const McpAuthMode = z.enum(["none", "org_token", "per_user_token", "oauth"]);
export type McpAuthMode = z.infer<typeof McpAuthMode>;

const ServerName = z.string().trim().min(1).max(100);
const ServerUrl = httpUrl();
const Token = z.string().min(1).max(4096);
const OAuthClientId = z.string().trim().min(1).max(512);
const OAuthClientSecret = z.string().min(1).max(4096);

export const McpServerCreateBody = z.strictObject({
  name: ServerName,
  url: ServerUrl,
  auth: McpAuthMode.default("none"),
  token: Token.optional(),
  active: z.boolean().default(true),
  /** For auth oauth: the client id an admin registered for Guichet at the server's authorization server (else Guichet registers itself). */
  oauth_client_id: OAuthClientId.optional(),
  /** Its secret, for a confidential client; never returned. */
  oauth_client_secret: OAuthClientSecret.optional(),
});
export type McpServerCreateBody = z.infer<typeof McpServerCreateBody>;

export const McpServerUpdateBody = z.strictObject({
  name: ServerName.optional(),
  url: ServerUrl.optional(),
  auth: McpAuthMode.optional(),
  /** A new token; null removes it. Absent keeps the stored one. */
  token: Token.nullable().optional(),
  active: z.boolean().optional(),
  /** A client id an admin registered; null returns to Guichet's own registration. Absent keeps it. */
  oauth_client_id: OAuthClientId.nullable().optional(),
  /** Its secret; null removes it. Absent keeps it (unless the client id changes). */
  oauth_client_secret: OAuthClientSecret.nullable().optional(),
});
export type McpServerUpdateBody = z.infer<typeof McpServerUpdateBody>;

/**
 * How long one call of a reviewed tool may take before it is abandoned with
 * TIMEOUT. The reviewer may set it; otherwise it follows the effect: a read
 * should answer quickly, a write may legitimately take longer (and a write that
 * times out is an unknown outcome, checked with the service's status tool).
 */
export const MCP_TOOL_TIMEOUT_DEFAULT_MS = { read: 10_000, write: 30_000 } as const;
export const MCP_TOOL_TIMEOUT_BOUNDS_MS = { min: 500, max: 120_000 } as const;

export function mcpToolTimeoutMs(tool: { writesData: boolean; timeoutMs: number | null }): number {
  return tool.timeoutMs ?? MCP_TOOL_TIMEOUT_DEFAULT_MS[tool.writesData ? "write" : "read"];
}

export const McpToolUpdateBody = z
  .strictObject({
    enabled: z.boolean().optional(),
    writes_data: z.boolean().optional(),
    /** true: the caller reviewed the tool as shown (fingerprint required); false: ask for a new review. */
    reviewed: z.boolean().optional(),
    /** The fingerprint the reviewer was shown: a tool that changed since then is refused. */
    fingerprint: z
      .string()
      .regex(/^[0-9a-f]{64}$/)
      .optional(),
    /** This tool's own timeout, in milliseconds; null returns to the default for its effect. */
    timeout_ms: z
      .number()
      .int()
      .min(MCP_TOOL_TIMEOUT_BOUNDS_MS.min)
      .max(MCP_TOOL_TIMEOUT_BOUNDS_MS.max)
      .nullable()
      .optional(),
  })
  .refine((body) => body.reviewed !== true || body.fingerprint !== undefined, {
    path: ["fingerprint"],
    message: "Required when reviewed is true.",
  });
export type McpToolUpdateBody = z.infer<typeof McpToolUpdateBody>;

export const McpServerParams = z.strictObject({ server: z.string().min(1).max(20) });
export const McpToolParams = z.strictObject({ server: z.string().min(1).max(20), tool: z.string().min(1).max(128) });

export const SyncErrorObject = z.object({
  code: z.enum(["url_not_allowed", "unreachable", "timeout", "unauthorized", "protocol"]),
  message: z.string(),
});

export const McpServerObject = z.object({
  id: z.number().int(),
  name: z.string(),
  url: z.string(),
  auth: McpAuthMode,
  active: z.boolean(),
  /** Whether an organization token is stored; the token itself is never returned. */
  has_token: z.boolean(),
  /** The client id an admin entered for auth oauth, or null when Guichet registers itself. */
  oauth_client_id: z.string().nullable(),
  /** Whether a client secret is stored with it; the secret itself is never returned. */
  has_oauth_client_secret: z.boolean(),
  tool_count: z.number().int(),
  tools_needing_review: z.number().int(),
  last_synced_at: z.string().nullable(),
  last_sync_error: SyncErrorObject.nullable(),
  created_at: z.string(),
  updated_at: z.string(),
});
export type McpServerObject = z.infer<typeof McpServerObject>;

const ShapeChangeObject = z.object({
  field: z.enum(["description", "input_schema", "output_schema"]),
  before: z.unknown(),
  after: z.unknown(),
});

const GuichetBoundObject = z.object({
  /** JSON pointer into the input schema of the field the bound applies to. */
  pointer: z.string(),
  keyword: z.enum(["maxLength", "minimum", "maximum", "maxItems", "maxProperties"]),
  value: z.number(),
});

export const LiveFactEnumObject = z.object({
  /** JSON pointer into the input schema of the enum. */
  pointer: z.string(),
  /** many_values: more than 20; id_shaped: values like uuids, prefix_123 or long digits; changed_between_syncs: not the values of the previous sync (or of the last review). */
  signals: z.array(z.enum(["many_values", "id_shaped", "changed_between_syncs"])),
  value_count: z.number().int(),
  id_examples: z.array(z.string()),
  /** Why it matters, in the doctrine's words (French). */
  reason: z.string(),
});

export const McpToolObject = z.object({
  name: z.string(),
  key: z.string(),
  description: z.string(),
  input_schema: z.record(z.string(), z.unknown()),
  output_schema: z.record(z.string(), z.unknown()).nullable(),
  annotations: z.record(z.string(), z.unknown()).nullable(),
  fingerprint: z.string(),
  status: z.enum(["needs_review", "reviewed"]),
  enabled: z.boolean(),
  writes_data: z.boolean(),
  /** What the annotations suggest (a hint that pre-fills the review form). */
  suggested_writes_data: z.boolean(),
  /** The timeout a call of this tool gets (its contract's `timeout_ms`). */
  timeout_ms: z.number().int(),
  /** "review": a reviewer set it; "default": it follows the effect (reads shorter than writes). */
  timeout_source: z.enum(["review", "default"]),
  available: z.boolean(),
  reason: CatalogEntryObject.shape.reason,
  /** Since the last review (all fields for a tool never reviewed); empty when reviewed as is. */
  changes: z.array(ShapeChangeObject),
  /** Bounds the server's input schema lacks and Guichet adds to the published contract (its defaults); empty when the schema bounds every field. */
  guichet_bounds: z.array(GuichetBoundObject),
  /** Input enums that look like live facts (ids that age), for the reviewer to question. */
  live_fact_enums: z.array(LiveFactEnumObject),
  reviewed_at: z.string().nullable(),
  reviewed_by: z.string().nullable(),
  removed_at: z.string().nullable(),
  /** A changed tool waiting for review: its recorded calls (traced runs) checked against the version under review. */
  replay: ReplayReport.nullable(),
});
export type McpToolObject = z.infer<typeof McpToolObject>;

export const SyncSummaryObject = z.object({
  added: z.array(z.string()),
  changed: z.array(z.string()),
  removed: z.array(z.string()),
  unchanged: z.array(z.string()),
  /** Input enums of the listed tools that look like live facts, compared with each tool's previous sync. */
  live_fact_enums: z.array(LiveFactEnumObject.extend({ tool: z.string() })),
});
