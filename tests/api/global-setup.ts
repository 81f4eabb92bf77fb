import { existsSync } from "node:fs";
import path from "node:path";
import { startAcmeCrm } from "@/connectors/acme-crm/server";
import { startBoutique } from "@/connectors/boutique/server";
import { startModelSim } from "@/connectors/model-sim/server";
import type { TestProject } from "vitest/node";
import { createTestDatabase, outboxTimings, run, startApp, startSearchBackend, testNetwork } from "./server";

declare module "vitest" {
  export interface ProvidedContext {
    baseUrl: string;
    databaseUrl: string;
    dataDir: string;
    /** The reference CRM Acme MCP server (http://127.0.0.1:PORT/mcp), control endpoints on. */
    crmUrl: string;
    crmBaseUrl: string;
    /** model-sim, the scripted model provider of Mistral models (control endpoints on). */
    simBaseUrl: string;
    /** The SearXNG-compatible search backend every suite server uses (GUICHET_SEARCH_URL). */
    searchUrl: string;
    /** Boutique, the OAuth-protected reference MCP server (its base URL; /mcp, /__control/* on). */
    boutiqueUrl: string;
  }
}

/**
 * One fresh database and one production server for the API suite. The build must
 * exist (`npm test` builds first); the database is migrated and seeded here.
 */
export default async function setup(project: TestProject) {
  if (!existsSync(`${process.env.GUICHET_DIST_DIR ?? ".next"}/BUILD_ID`))
    throw new Error("No production build: run `npx next build` (npm test does it).");
  const kind = process.env.TEST_DB === "postgresql" ? "postgresql" : "sqlite";
  const database = await createTestDatabase(kind);
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    NODE_ENV: "production" as const,
    DATABASE_URL: database.url,
    GUICHET_DATA_DIR: database.dataDir,
    ...testNetwork(),
    ...outboxTimings(),
    GUICHET_RATE_LIMIT_PER_MINUTE: process.env.GUICHET_RATE_LIMIT_PER_MINUTE ?? "100000",
    // Every widget suite calls from 127.0.0.1: the per-address share would otherwise run out mid-suite.
    GUICHET_WIDGET_REQUESTS_PER_ADDRESS_PER_HOUR: "100000",
    // The suite's instance serves every route: it loads them all as it starts, as in production.
    GUICHET_PRELOAD_ROUTES: "1",
    // A managed run's lease: a run whose instance a test kills is taken over within seconds.
    GUICHET_RUN_LEASE_MS: "3000",
  };
  const crm = await startAcmeCrm({
    port: 0,
    dbPath: path.join(database.dataDir, "acme-crm.sqlite"),
    enableControl: true,
  });
  // The demo seed connects Acme to this CRM.
  env.GUICHET_DEMO_CRM_URL = crm.url;
  // Mistral models call model-sim; the other providers stay unconfigured (a managed run of them is refused).
  const sim = await startModelSim({ port: 0, enableControl: true, apiKey: "sk-sim-suite" });
  env.GUICHET_MODEL_MISTRAL_BASE_URL = sim.url;
  env.GUICHET_MODEL_MISTRAL_API_KEY = "sk-sim-suite";
  env.GUICHET_MODEL_TIMEOUT_MS = "2000";
  // web_search needs a backend: without one it is unavailable and no run is offered it.
  const search = await startSearchBackend();
  env.GUICHET_SEARCH_URL = search.url;
  // Boutique: its MCP server and its authorization server share one loopback origin, granted like CRM Acme's.
  const boutique = await startBoutique({ controls: true });
  // Test tenants have random slugs: CRM Acme, the model simulator and the search backend are granted to every organization.
  env.GUICHET_PRIVATE_ORIGINS = [
    `${new URL(crm.url).origin}=*`,
    `${sim.baseUrl}=*`,
    `${search.origin}=*`,
    `${new URL(boutique.url).origin}=*`,
  ].join(",");
  await run(process.execPath, ["scripts/migrate.mjs"], env);
  // react-server: the seed loads services marked `import "server-only"`.
  await run(process.execPath, ["node_modules/tsx/dist/cli.mjs", "--conditions=react-server", "prisma/seed.ts"], env);
  const app = await startApp(env);
  project.provide("baseUrl", app.baseUrl);
  project.provide("databaseUrl", database.url);
  project.provide("dataDir", database.dataDir);
  project.provide("crmUrl", crm.url);
  project.provide("crmBaseUrl", crm.baseUrl);
  project.provide("simBaseUrl", sim.baseUrl);
  project.provide("searchUrl", search.url);
  project.provide("boutiqueUrl", boutique.url);
  console.log(`API tests on ${kind} at ${app.baseUrl} (build in ${process.env.GUICHET_DIST_DIR ?? ".next"})`);
  return async () => {
    // DEBUG_APP_LOG=<file>: the suite's server log, kept after the run (it is dropped otherwise).
    if (process.env.DEBUG_APP_LOG) (await import("node:fs")).writeFileSync(process.env.DEBUG_APP_LOG, app.log());
    await app.stop();
    await crm.close();
    await sim.close();
    await search.close();
    await boutique.close();
    await database.drop();
  };
}
