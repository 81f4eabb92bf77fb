// The whole product on a throwaway database, for Playwright's webServer and for
// the benchmarks: fresh database (SQLite, or PostgreSQL with TEST_DB=postgresql),
// migrations, demo seed, CRM Acme, model-sim (the provider of Mistral models, with
// the demo's script for conversations that select none), a SearXNG-compatible
// search backend for web_search, and
// the production server (server/main.mjs) on the build.
// Writes what the tests need to know to $STACK_FILE, cleans up on SIGTERM.
import { mkdirSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { startAcmeCrm } from "@/connectors/acme-crm/server";
import { startBoutique } from "@/connectors/boutique/server";
import { namedScriptId, ScriptBody } from "@/connectors/model-sim/script";
import { startModelSim } from "@/connectors/model-sim/server";
import { createTestDatabase, freePort, run, startApp, startSearchBackend, testNetwork } from "@/tests/api/server";

const DEMO_SCRIPTS = "connectors/model-sim/demo";

export interface TestStack {
  baseUrl: string;
  crmUrl: string;
  crmBaseUrl: string;
  /** model-sim with its control API: tests and benchmarks script the model there. */
  simBaseUrl: string;
  /** The SearXNG-compatible search backend (GUICHET_SEARCH_URL). */
  searchUrl: string;
  /** Boutique, the demo shop behind OAuth (its authorization server and MCP server), with its test controls. */
  boutiqueUrl: string;
  databaseUrl: string;
  dataDir: string;
}

export async function startTestStack(options: { port?: number; env?: Record<string, string> } = {}) {
  const database = await createTestDatabase(process.env.TEST_DB === "postgresql" ? "postgresql" : "sqlite");
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    ...options.env,
    NODE_ENV: "production" as const,
    DATABASE_URL: database.url,
    GUICHET_DATA_DIR: database.dataDir,
    ...testNetwork(),
  };
  const crm = await startAcmeCrm({
    port: 0,
    dbPath: path.join(database.dataDir, "acme-crm.sqlite"),
    enableControl: true,
  });
  env.GUICHET_DEMO_CRM_URL = crm.url;
  // As `npm start` does: a conversation that selects no script gets the demo's (read C-1842, propose an address change).
  const demoScript = ScriptBody.parse(
    JSON.parse(readFileSync("connectors/model-sim/demo/address-change.json", "utf8")),
  );
  // The demo agents' own scripts (« Commandes Boutique »), selected by the marker in their instructions.
  const namedScripts = Object.fromEntries(
    readdirSync(DEMO_SCRIPTS)
      .filter((file) => file.endsWith(".json"))
      .map((file) => [
        namedScriptId(file),
        ScriptBody.parse(JSON.parse(readFileSync(path.join(DEMO_SCRIPTS, file), "utf8"))),
      ]),
  );
  const sim = await startModelSim({ port: 0, enableControl: true, defaultScript: demoScript, namedScripts });
  env.GUICHET_MODEL_MISTRAL_BASE_URL = sim.url;
  // web_search needs a backend: without one it is unavailable and no run is offered it.
  const search = await startSearchBackend();
  env.GUICHET_SEARCH_URL = search.url;
  // As the demo: CRM Acme is granted to Acme only; the model simulator and the search backend, the
  // operator's shared services, to every organization.
  env.GUICHET_PRIVATE_ORIGINS = [`${new URL(crm.url).origin}=acme`, `${sim.baseUrl}=*`, `${search.origin}=*`].join(",");
  // As the demo: Boutique, granted to Acme; the seed signs Acme's owner in there (its callback names the
  // console's origin, so the port is chosen before the seed) and creates the agent « Commandes Boutique ».
  const boutique = await startBoutique({ port: 0, controls: true });
  const port = options.port ?? (await freePort());
  env.GUICHET_DEMO_BOUTIQUE_URL = boutique.mcpUrl;
  env.GUICHET_PRIVATE_ORIGINS += `,${boutique.url}=acme`;
  env.NEXTAUTH_URL = `http://127.0.0.1:${port}`;
  await run(process.execPath, ["scripts/migrate.mjs"], env);
  // react-server: the seed loads services marked `import "server-only"`.
  await run(process.execPath, ["node_modules/tsx/dist/cli.mjs", "--conditions=react-server", "prisma/seed.ts"], env);
  const app = await startApp(env, port);
  const stack: TestStack = {
    baseUrl: app.baseUrl,
    crmUrl: crm.url,
    crmBaseUrl: crm.baseUrl,
    simBaseUrl: sim.baseUrl,
    searchUrl: search.url,
    boutiqueUrl: boutique.url,
    databaseUrl: database.url,
    dataDir: database.dataDir,
  };
  return {
    stack,
    async stop() {
      await app.stop();
      await crm.close();
      await sim.close();
      await search.close();
      await boutique.close();
      await database.drop();
    },
  };
}

async function main() {
  const port = Number(process.env.STACK_PORT ?? 3210);
  const { stack, stop } = await startTestStack({ port });
  const file = process.env.STACK_FILE ?? `test-results/stack-${port}.json`;
  mkdirSync(path.dirname(file), { recursive: true });
  writeFileSync(file, JSON.stringify(stack, null, 2));
  console.log(`test stack ready at ${stack.baseUrl} (CRM ${stack.crmUrl})`);
  let stopping = false;
  const shutdown = async () => {
    if (stopping) return;
    stopping = true;
    await stop();
    process.exit(0);
  };
  process.on("SIGTERM", shutdown);
  process.on("SIGINT", shutdown);
}

if (process.argv[1]?.endsWith("test-stack.ts")) {
  main().catch((error) => {
    console.error(error);
    process.exit(1);
  });
}
