import { readFileSync } from "node:fs";
import http from "node:http";
import path from "node:path";
import { startModelSim, type ModelSimServer } from "@/connectors/model-sim/server";
import { crmUrl, type Caller } from "./helpers";
import { createTestDatabase, run, startApp, testNetwork, type TestDatabase } from "./server";

// A Guichet instance of its own for the observability tests, on a fresh database
// with the demo seed (Acme, its members and its API key): its background jobs
// (an approved write's resume) run in this instance and nowhere else, so what it
// exports is the whole story. CRM Acme is the suite's, and model-sim one of this
// file's, both reached through recording proxies that keep the trace headers
// and the MCP `_meta` each request carried.

export interface SeenRequest {
  path: string;
  traceparent: string | null;
  /** `params._meta.traceparent` of a JSON-RPC request body. */
  metaTraceparent: string | null;
  authorization: string | null;
}

export interface RecordingProxy {
  origin: string;
  seen: SeenRequest[];
  close(): Promise<void>;
}

/** Forwards every request to `target` (an origin) as it is, and records what it carried. */
export async function startRecordingProxy(target: string): Promise<RecordingProxy> {
  const seen: SeenRequest[] = [];
  const to = new URL(target);
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (chunk: Buffer) => chunks.push(chunk));
    req.on("end", () => {
      const body = Buffer.concat(chunks);
      let meta: string | null = null;
      try {
        const parsed = JSON.parse(body.toString("utf8")) as { params?: { _meta?: { traceparent?: unknown } } };
        if (typeof parsed?.params?._meta?.traceparent === "string") meta = parsed.params._meta.traceparent;
      } catch {
        // not JSON
      }
      seen.push({
        path: req.url ?? "/",
        traceparent: (req.headers.traceparent as string | undefined) ?? null,
        metaTraceparent: meta,
        authorization: req.headers.authorization ?? null,
      });
      const upstream = http.request(
        {
          host: to.hostname,
          port: to.port,
          path: req.url,
          method: req.method,
          headers: { ...req.headers, host: to.host },
        },
        (answer) => {
          res.writeHead(answer.statusCode ?? 502, answer.headers);
          answer.pipe(res);
        },
      );
      upstream.on("error", () => res.destroy());
      upstream.end(body);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as { port: number };
  return {
    origin: `http://127.0.0.1:${port}`,
    seen,
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

export interface ObservedStack {
  baseUrl: string;
  demoKey: string;
  sim: ModelSimServer;
  crmProxy: RecordingProxy;
  simProxy: RecordingProxy;
  /** The CRM Acme MCP endpoint through its proxy. */
  crmUrl: string;
  log(): string;
  stop(): Promise<void>;
}

/** Migrates and seeds a fresh database, then starts `next start` on it with `env` added. */
export async function startObservedStack(env: Record<string, string>, simApiKey: string): Promise<ObservedStack> {
  const database: TestDatabase = await createTestDatabase(
    process.env.TEST_DB === "postgresql" ? "postgresql" : "sqlite",
  );
  const sim = await startModelSim({ port: 0, enableControl: true, apiKey: simApiKey });
  const crmProxy = await startRecordingProxy(new URL(crmUrl).origin);
  const simProxy = await startRecordingProxy(sim.baseUrl);
  const proxiedCrm = `${crmProxy.origin}${new URL(crmUrl).pathname}`;
  const base: NodeJS.ProcessEnv = {
    ...process.env,
    NODE_ENV: "production",
    DATABASE_URL: database.url,
    GUICHET_DATA_DIR: database.dataDir,
    ...testNetwork(),
    GUICHET_SEED_DEMO: "1",
    GUICHET_DEMO_CRM_URL: proxiedCrm,
    GUICHET_PRIVATE_ORIGINS: `${crmProxy.origin}=*,${simProxy.origin}=*`,
    GUICHET_MODEL_MISTRAL_BASE_URL: `${simProxy.origin}/v1`,
    GUICHET_MODEL_MISTRAL_API_KEY: simApiKey,
    GUICHET_MODEL_TIMEOUT_MS: "5000",
    GUICHET_RATE_LIMIT_PER_MINUTE: "100000",
  };
  await run(process.execPath, ["scripts/migrate.mjs"], base);
  await run(process.execPath, ["node_modules/tsx/dist/cli.mjs", "--conditions=react-server", "prisma/seed.ts"], base);
  const app = await startApp({ ...base, ...env });
  return {
    baseUrl: app.baseUrl,
    demoKey: readFileSync(path.join(database.dataDir, "demo-api-key"), "utf8").trim(),
    sim,
    crmProxy,
    simProxy,
    crmUrl: proxiedCrm,
    log: app.log,
    async stop() {
      await app.stop();
      await Promise.all([crmProxy.close(), simProxy.close(), sim.close()]);
      await database.drop();
    },
  };
}

/** A JSON request to `base`, answering the status and the parsed body. */
export async function call(
  base: string,
  route: string,
  options: { method?: string; json?: unknown; as?: Caller; headers?: Record<string, string> } = {},
): Promise<{ status: number; body: any }> {
  const headers: Record<string, string> = { ...options.headers };
  if (options.as?.key) headers.authorization = `Bearer ${options.as.key}`;
  if (options.as?.cookie) headers.cookie = options.as.cookie;
  if (options.json !== undefined) headers["content-type"] = "application/json";
  const response = await fetch(`${base}${route}`, {
    method: options.method ?? (options.json !== undefined ? "POST" : "GET"),
    headers,
    body: options.json !== undefined ? JSON.stringify(options.json) : undefined,
  });
  const text = await response.text();
  let body: unknown = text;
  try {
    body = text ? JSON.parse(text) : null;
  } catch {
    // not JSON
  }
  return { status: response.status, body };
}

/** Connects CRM Acme (through its proxy) with an organization token, syncs it and reviews every tool. */
export async function connectCrmWithToken(stack: ObservedStack, admin: Caller, token: string): Promise<number> {
  const created = await call(stack.baseUrl, "/v1/mcp_servers", {
    json: { name: "CRM Acme (jeton)", url: stack.crmUrl, auth: "org_token", token, active: true },
    as: admin,
  });
  if (created.status !== 201) throw new Error(`server: HTTP ${created.status} ${JSON.stringify(created.body)}`);
  const id = created.body.data.id as number;
  const synced = await call(stack.baseUrl, `/v1/mcp_servers/${id}/sync`, { method: "POST", as: admin });
  if (synced.status !== 200) throw new Error(`sync: HTTP ${synced.status} ${JSON.stringify(synced.body)}`);
  const tools = await call(stack.baseUrl, `/v1/mcp_servers/${id}/tools`, { as: admin });
  for (const tool of tools.body.data as {
    name: string;
    fingerprint: string;
    status: string;
    suggested_writes_data: boolean;
  }[]) {
    if (tool.status === "reviewed") continue;
    const reviewed = await call(stack.baseUrl, `/v1/mcp_servers/${id}/tools/${tool.name}`, {
      method: "PATCH",
      json: { reviewed: true, fingerprint: tool.fingerprint, writes_data: tool.suggested_writes_data },
      as: admin,
    });
    if (reviewed.status !== 200) throw new Error(`review ${tool.name}: HTTP ${reviewed.status}`);
  }
  return id;
}
