import { z } from "zod";
import { ListQuery } from "@/lib/http/list-query";

// /v1/widgets: a chat bubble that puts an agent on one of the organization's
// own sites. Browser-safe (the console's forms read the same rules).

export const MAX_ALLOWED_ORIGINS = 20;
export const MAX_STARTER_PROMPTS = 4;

/**
 * Why an allowed origin is refused, or null when it is one: an exact origin
 * (scheme, host, port; no path, query, credentials or wildcard), `https://`,
 * or `http://localhost[:port]` for development. A page's `Origin` header is
 * compared with these strings as they are, so they must already be canonical.
 */
export function originProblem(value: string): string | null {
  if (value.includes("*")) return "wildcards are not allowed: list each origin";
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    return "not an origin (https://shop.example)";
  }
  const local = url.protocol === "http:" && url.hostname === "localhost";
  if (url.protocol !== "https:" && !local) return "https:// only (http://localhost[:port] for development)";
  if (url.username || url.password) return "no credentials in an origin";
  if (value !== url.origin) return `an origin has no path, query or trailing slash: ${url.origin}`;
  return null;
}

export const AllowedOrigins = z
  .array(z.string().max(200))
  .min(1)
  .max(MAX_ALLOWED_ORIGINS)
  .superRefine((origins, context) => {
    origins.forEach((origin, index) => {
      const problem = originProblem(origin);
      if (problem)
        context.addIssue({ code: "custom", path: [index], message: `${JSON.stringify(origin)}: ${problem}.` });
    });
    if (new Set(origins).size !== origins.length) context.addIssue({ code: "custom", message: "Each origin once." });
  })
  .meta({ description: "1–20 exact origins (https://, or http://localhost[:port]); no wildcard, no path." });

export const WidgetIdentity = z.enum(["anonymous", "verified"]);
export const WidgetCapabilities = z.enum(["read", "read_write"]);

const AccentColor = z.string().regex(/^#[0-9a-fA-F]{6}$/, "A colour as #rrggbb.");

export const WidgetAppearance = z.strictObject({
  title: z.string().trim().min(1).max(60).default("Assistant"),
  greeting: z.string().trim().max(500).default(""),
  starter_prompts: z.array(z.string().trim().min(1).max(120)).max(MAX_STARTER_PROMPTS).default([]),
  accent_color: AccentColor.default("#1d4ed8"),
  position: z.enum(["left", "right"]).default("right"),
  language: z.enum(["fr", "en"]).default("fr"),
});
export type WidgetAppearance = z.infer<typeof WidgetAppearance>;

/** The defaults protect the plan: a bubble left open to the internet cannot spend it in an afternoon. */
export const WIDGET_LIMIT_DEFAULTS = {
  messages_per_visitor_per_hour: 30,
  conversations_per_day: 200,
  messages_per_conversation: 40,
} as const;

export const WidgetLimits = z.strictObject({
  messages_per_visitor_per_hour: z
    .number()
    .int()
    .min(1)
    .max(1000)
    .default(WIDGET_LIMIT_DEFAULTS.messages_per_visitor_per_hour),
  conversations_per_day: z.number().int().min(1).max(100_000).default(WIDGET_LIMIT_DEFAULTS.conversations_per_day),
  messages_per_conversation: z.number().int().min(1).max(500).default(WIDGET_LIMIT_DEFAULTS.messages_per_conversation),
});
export type WidgetLimits = z.infer<typeof WidgetLimits>;

const Name = z.string().trim().min(1).max(100);
const Instructions = z.string().max(20_000).nullable();

export const WidgetCreateBody = z.strictObject({
  agent: z.string().min(1).max(64),
  name: Name,
  allowed_origins: AllowedOrigins,
  identity: WidgetIdentity.default("anonymous"),
  capabilities: WidgetCapabilities.default("read"),
  instructions: Instructions.optional().meta({ description: "Appended after the agent's instructions." }),
  appearance: WidgetAppearance.default(WidgetAppearance.parse({})),
  limits: WidgetLimits.default(WidgetLimits.parse({})),
  active: z.boolean().default(true),
});
export type WidgetCreateBody = z.infer<typeof WidgetCreateBody>;

export const WidgetUpdateBody = z.strictObject({
  name: Name.optional(),
  allowed_origins: AllowedOrigins.optional(),
  identity: WidgetIdentity.optional(),
  capabilities: WidgetCapabilities.optional(),
  instructions: Instructions.optional(),
  appearance: WidgetAppearance.partial().optional(),
  limits: WidgetLimits.partial().optional(),
  active: z.boolean().optional(),
});
export type WidgetUpdateBody = z.infer<typeof WidgetUpdateBody>;

export const WidgetParams = z.strictObject({ widget: z.string().min(1).max(64) });
export const WidgetListQuery = ListQuery;

export const WidgetObject = z.object({
  id: z.string(),
  agent: z.string(),
  name: z.string(),
  public_key: z.string().meta({ description: "pk_…: public by design, it names the widget in the page's snippet." }),
  allowed_origins: z.array(z.string()),
  identity: WidgetIdentity,
  capabilities: WidgetCapabilities,
  instructions: z.string().nullable(),
  appearance: WidgetAppearance,
  limits: WidgetLimits,
  active: z.boolean(),
  signing_secret_prefix: z.string(),
  usage: z.object({
    conversations: z.number().int(),
    messages: z.number().int(),
    preview_conversations: z.number().int().meta({
      description: "How many of the conversations were opened from the console's preview (counted in the totals).",
    }),
  }),
  created_at: z.string(),
  updated_at: z.string(),
});
export type WidgetObject = z.infer<typeof WidgetObject>;

export const WidgetWithSecret = WidgetObject.extend({
  signing_secret: z.string().meta({ description: "wsec_…: returned once; signs verified visitors' tokens (HS256)." }),
});

export const WidgetConversationObject = z.object({
  id: z.string(),
  widget: z.string(),
  visitor: z.object({ id: z.string(), name: z.string().nullable() }),
  origin: z.string(),
  preview: z.boolean().meta({ description: "Opened by a member from the console's preview, not by a visitor." }),
  messages: z.number().int(),
  created_at: z.string(),
  updated_at: z.string(),
});
export type WidgetConversationObject = z.infer<typeof WidgetConversationObject>;

export const WidgetConversationParams = z.strictObject({
  widget: z.string().min(1).max(64),
  conversation: z.string().min(1).max(64),
});

export const WidgetTurnObject = z.object({
  id: z.string(),
  content: z.string(),
  run: z.string().nullable(),
  run_status: z.string().nullable(),
  answer: z.string().nullable(),
  created_at: z.string(),
});
export const WidgetConversationDetail = WidgetConversationObject.extend({ turns: z.array(WidgetTurnObject) });
