import path from "node:path";
import { z } from "zod";
import { parseOriginGrants } from "./net/origin-grants-syntax";
import { commaList } from "@/lib/comma-list";

// The environment, read once and validated. Everything else imports `env`.
const EnvSchema = z.object({
  NODE_ENV: z.enum(["development", "production", "test"]).default("development"),
  DATABASE_URL: z.string().optional(),
  GUICHET_DATA_DIR: z.string().default("data"),
  NEXTAUTH_SECRET: z.string().min(16).optional(),
  GUICHET_ENCRYPTION_KEY: z.string().min(16).optional(),
  // Private origins granted per organization (comma-separated `<origin>=<slug>[|<slug>...]` or `<origin>=*`,
  // e.g. http://127.0.0.1:4010=acme): admin-chosen destinations of those organizations (MCP servers, webhooks,
  // model providers, the search backend) may reach them on loopback or a private network. URLs chosen by a model never may.
  GUICHET_PRIVATE_ORIGINS: z.string().default(""),
  GUICHET_SEARCH_URL: z.string().url().optional(),
  // The CRM Acme MCP endpoint the demo seed connects Acme to (npm start runs it there).
  GUICHET_DEMO_CRM_URL: z.string().url().default("http://127.0.0.1:4010/mcp"),
  // The Boutique demo shop's MCP endpoint (OAuth, per member); unset, the demo has no per-member connector.
  GUICHET_DEMO_BOUTIQUE_URL: z.string().url().optional(),
  // The demo shop page `npm start` serves on a second origin, with the demo widget's snippet.
  GUICHET_DEMO_SHOP_PORT: z.coerce.number().int().min(1).max(65535).default(4030),
  REDIS_URL: z.string().optional(),
  GUICHET_RATE_LIMIT_PER_MINUTE: z.coerce.number().int().positive().default(600),
  // Dynamic Client Registration is open to anyone: at most this many registrations per address and hour.
  GUICHET_OAUTH_REGISTRATIONS_PER_HOUR: z.coerce.number().int().positive().default(30),
  GUICHET_LOG_LEVEL: z.enum(["debug", "info", "warn", "error", "silent"]).default("info"),
  GUICHET_MAX_BODY_BYTES: z.coerce.number().int().positive().default(1_048_576),
  // Deepest nesting of arrays/objects a /v1 JSON body may have; checked before parsing.
  GUICHET_MAX_JSON_DEPTH: z.coerce.number().int().positive().default(64),
  // Tool calls through the dispatcher: per run and per organization, each a one-minute window shared by every instance.
  // "1": a tool call's step and counters wait for the disk's confirmation on PostgreSQL too (lib/db/driver.ts).
  GUICHET_DURABLE_RECORDS: z.enum(["0", "1"]).default("0"),
  GUICHET_RUN_CALLS_PER_MINUTE: z.coerce.number().int().positive().default(120),
  GUICHET_ORG_CALLS_PER_MINUTE: z.coerce.number().int().positive().default(1200),
  // The console's public URL: links handed to MCP clients (approval pages) and the Origin the MCP endpoint trusts.
  NEXTAUTH_URL: z.string().url().optional(),
  // Comma-separated browser origins besides the console's that may call /mcp (DNS-rebinding protection refuses the rest).
  GUICHET_MCP_ALLOWED_ORIGINS: z.string().default(""),
  // Model providers (OpenAI-compatible chat completions) for managed runs: for every provider, unless
  // GUICHET_MODEL_<PROVIDER>_BASE_URL / _API_KEY name one (see providerSettings below and docs/models.md).
  GUICHET_MODEL_BASE_URL: z.string().url().optional(),
  GUICHET_MODEL_API_KEY: z.string().min(1).optional(),
  // One model call's time limit, its retries included; a managed run's whole loop has its own.
  GUICHET_MODEL_TIMEOUT_MS: z.coerce.number().int().positive().default(60_000),
  GUICHET_MANAGED_RUN_TIMEOUT_MS: z.coerce.number().int().positive().default(300_000),
  // Days a managed run's conversation (messages, final answer) is kept; a job deletes it afterwards.
  GUICHET_RUN_RETENTION_DAYS: z.coerce.number().int().positive().max(3650).default(30),
  // Model calls a managed run may make before it fails with max_steps_exceeded.
  GUICHET_RUN_MAX_STEPS: z.coerce.number().int().positive().max(200).default(20),
  // How long an executing managed run's lease holds without a heartbeat: another instance takes the run over
  // this long after its instance died. The heartbeat renews it every third of it; the sweep looks as often.
  GUICHET_RUN_LEASE_MS: z.coerce.number().int().min(1_000).max(600_000).default(15_000),
  // A write's operation still `running` this long after it was sent is settled by a background sweep through
  // the service's status tool (its sender died, or lost the database while recording the answer). Keep it above
  // the longest write timeout plus the status call (30 s): a live sender is never raced.
  GUICHET_OPERATION_STALE_MS: z.coerce.number().int().min(1_000).max(86_400_000).default(300_000),
  // How often that sweep looks (one instance at a time).
  GUICHET_OPERATION_SWEEP_MS: z.coerce.number().int().min(250).max(3_600_000).default(60_000),
  // Console sessions (seconds): the longest a sign-in lasts, and how long it may go unused before it ends.
  GUICHET_SESSION_MAX_AGE: z.coerce
    .number()
    .int()
    .positive()
    .default(12 * 60 * 60),
  GUICHET_SESSION_IDLE_TIMEOUT: z.coerce
    .number()
    .int()
    .positive()
    .default(2 * 60 * 60),
  // Sign-in throttle: wrong passwords allowed before a lockout, per account and per client address,
  // and the longest lockout (seconds) the doubling delay reaches.
  GUICHET_SIGN_IN_ACCOUNT_ATTEMPTS: z.coerce.number().int().positive().default(5),
  GUICHET_SIGN_IN_IP_ATTEMPTS: z.coerce.number().int().positive().default(20),
  GUICHET_SIGN_IN_MAX_LOCKOUT: z.coerce
    .number()
    .int()
    .positive()
    .default(15 * 60),
  // "1" when a reverse proxy you run appends the client's address to X-Forwarded-For; otherwise the
  // connection's own address identifies the client (a client-sent X-Forwarded-For is ignored).
  GUICHET_TRUST_PROXY: z.enum(["0", "1"]).default("0"),
  // Outgoing e-mail (smtp://user:pass@host:587, smtps://… for implicit TLS): absent, Guichet sends none.
  GUICHET_SMTP_URL: z
    .string()
    .refine((value) => URL.canParse(value) && /^smtps?:$/.test(new URL(value).protocol), "smtp(s) URL")
    .optional(),
  GUICHET_MAIL_FROM: z.string().min(3).default("Guichet <guichet@localhost>"),
  // Public sign-up: anyone may create an organization from the console. Off: only the first run and the instance owner do.
  GUICHET_ALLOW_SIGNUP: z.enum(["0", "1"]).default("0"),
  // Sign-ups accepted per client address and hour: each creates an organization, so a script cannot fill the instance.
  GUICHET_SIGNUP_PER_HOUR: z.coerce.number().int().positive().default(5),
  // Invitations one administrator may send per hour: each link may be an e-mail to an outside address.
  GUICHET_INVITATIONS_PER_HOUR: z.coerce.number().int().positive().default(20),
  // Requests one client address may make to the widget surface per hour, whatever the widget.
  GUICHET_WIDGET_REQUESTS_PER_ADDRESS_PER_HOUR: z.coerce.number().int().positive().default(600),
  // Webhook and e-mail deliveries (see docs/webhooks.md): one attempt's time limit, the first retry's delay
  // (doubling up to 2 h, for 24 h), failed attempts in a row that disable an endpoint, and how often the outbox is read.
  GUICHET_WEBHOOK_TIMEOUT_MS: z.coerce.number().int().positive().default(10_000),
  GUICHET_WEBHOOK_RETRY_BASE_MS: z.coerce.number().int().positive().default(10_000),
  GUICHET_WEBHOOK_DISABLE_AFTER: z.coerce.number().int().positive().default(50),
  GUICHET_OUTBOX_POLL_MS: z.coerce.number().int().positive().default(2_000),
  // Bearer token of GET /metrics (Prometheus); unset, /metrics answers 404 and no metric is collected.
  GUICHET_METRICS_TOKEN: z.string().min(16).optional(),
  // OpenTelemetry traces (lib/observability): on with an OTLP endpoint or OTEL_TRACES_EXPORTER=otlp; the SDK
  // reads these and the other OTEL_* variables itself (OTEL_SERVICE_NAME, OTEL_EXPORTER_OTLP_HEADERS…).
  OTEL_EXPORTER_OTLP_ENDPOINT: z.string().url().optional(),
  OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: z.string().url().optional(),
  OTEL_TRACES_EXPORTER: z.string().optional(),
  OTEL_SERVICE_NAME: z.string().min(1).optional(),
  // Days an audit event is kept; older ones are purged (the only delete the audit table allows).
  GUICHET_AUDIT_RETENTION_DAYS: z.coerce.number().int().positive().default(365),
});

export interface ProviderSetting {
  baseUrl?: string;
  apiKey?: string;
}

const PROVIDER_VARIABLE = /^GUICHET_MODEL_([A-Z0-9]+)_(BASE_URL|API_KEY)$/;

/** GUICHET_MODEL_MISTRAL_BASE_URL=… → {mistral: {baseUrl: …}}; a base URL that is not http(s) stops the server at start. */
function providerSettings(variables: NodeJS.ProcessEnv): Readonly<Record<string, ProviderSetting>> {
  const settings: Record<string, ProviderSetting> = {};
  for (const [name, value] of Object.entries(variables)) {
    const match = PROVIDER_VARIABLE.exec(name);
    if (!match || !value) continue;
    const provider = match[1].toLowerCase();
    const setting = (settings[provider] ??= {});
    if (match[2] === "API_KEY") {
      setting.apiKey = value;
      continue;
    }
    if (!URL.canParse(value) || !/^https?:$/.test(new URL(value).protocol))
      throw new Error(`Invalid environment: ${name} is not an http(s) URL`);
    setting.baseUrl = value;
  }
  return Object.freeze(settings);
}

/** Each entry must be an http(s) origin: a typo would otherwise silently allow nothing, or something else. */
function parseOrigins(name: string, value: string): readonly string[] {
  const origins = commaList(value).map((entry) => {
    const url = URL.canParse(entry) ? new URL(entry) : null;
    if (
      !url ||
      (url.protocol !== "http:" && url.protocol !== "https:") ||
      (url.pathname !== "/" && url.pathname !== "")
    ) {
      throw new Error(
        `Invalid environment: ${name} entry "${entry}" is not an http(s) origin like http://127.0.0.1:4010`,
      );
    }
    return url.origin;
  });
  return Object.freeze([...new Set(origins)]);
}

function readEnv() {
  const parsed = EnvSchema.safeParse(process.env);
  if (!parsed.success) {
    const fields = parsed.error.issues.map((issue) => issue.path.join(".")).join(", ");
    throw new Error(`Invalid environment: ${fields}`);
  }
  const raw = parsed.data;
  const dataDir = path.resolve(raw.GUICHET_DATA_DIR);
  return {
    ...raw,
    dataDir,
    databaseUrl: raw.DATABASE_URL ?? `file:${path.join(dataDir, "guichet.sqlite")}`,
    /** Who may reach which private origin: ask lib/net/origin-grants.ts for one organization's list. */
    privateOriginGrants: parseOriginGrants("GUICHET_PRIVATE_ORIGINS", raw.GUICHET_PRIVATE_ORIGINS),
    /** The console's origin (from NEXTAUTH_URL), or null when the request's own origin stands in. */
    consoleOrigin: raw.NEXTAUTH_URL ? new URL(raw.NEXTAUTH_URL).origin : null,
    /** Browser origins that may call /mcp: the listed ones and the console's. */
    mcpAllowedOrigins: Object.freeze([
      ...parseOrigins("GUICHET_MCP_ALLOWED_ORIGINS", raw.GUICHET_MCP_ALLOWED_ORIGINS),
      ...(raw.NEXTAUTH_URL ? [new URL(raw.NEXTAUTH_URL).origin] : []),
    ]),
    modelProviders: providerSettings(process.env),
  };
}

export const env = readEnv();
export type Env = typeof env;
