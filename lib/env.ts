import path from "node:path";
import { z } from "zod";

// The environment, read once and validated. Everything else imports `env`.
const EnvSchema = z.object({
  NODE_ENV: z.enum(["development", "production", "test"]).default("development"),
  DATABASE_URL: z.string().optional(),
  GUICHET_DATA_DIR: z.string().default("data"),
  NEXTAUTH_SECRET: z.string().min(16).optional(),
  GUICHET_ENCRYPTION_KEY: z.string().min(16).optional(),
  // Loopback MCP servers and fetch targets are allowed only when the operator says so (the dev setup does).
  GUICHET_ALLOW_LOOPBACK: z.enum(["0", "1"]).default("0"),
  GUICHET_ALLOW_PRIVATE: z.enum(["0", "1"]).default("0"),
  GUICHET_SEARCH_URL: z.string().url().optional(),
  // The CRM Acme MCP endpoint the demo seed connects Acme to (npm start runs it there).
  GUICHET_DEMO_CRM_URL: z.string().url().default("http://127.0.0.1:4010/mcp"),
  REDIS_URL: z.string().optional(),
  GUICHET_RATE_LIMIT_PER_MINUTE: z.coerce.number().int().positive().default(600),
  GUICHET_LOG_LEVEL: z.enum(["debug", "info", "warn", "error", "silent"]).default("info"),
  GUICHET_MAX_BODY_BYTES: z.coerce.number().int().positive().default(1_048_576),
  // Deepest nesting of arrays/objects a /v1 JSON body may have; checked before parsing.
  GUICHET_MAX_JSON_DEPTH: z.coerce.number().int().positive().default(64),
  // Tool calls through the dispatcher: per run and per organization, each a one-minute window shared by every instance.
  GUICHET_RUN_CALLS_PER_MINUTE: z.coerce.number().int().positive().default(120),
  GUICHET_ORG_CALLS_PER_MINUTE: z.coerce.number().int().positive().default(1200),
  // The console's public URL: links handed to MCP clients (approval pages) and the Origin the MCP endpoint trusts.
  NEXTAUTH_URL: z.string().url().optional(),
  // Comma-separated browser origins besides the console's that may call /mcp (DNS-rebinding protection refuses the rest).
  GUICHET_MCP_ALLOWED_ORIGINS: z.string().default(""),
});

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
    allowLoopback: raw.GUICHET_ALLOW_LOOPBACK === "1",
    allowPrivate: raw.GUICHET_ALLOW_PRIVATE === "1",
  };
}

export const env = readEnv();
export type Env = typeof env;
