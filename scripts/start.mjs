// npm start — the product on the embedded database with demo data:
// dependencies, Prisma clients, migrations, seed, the CRM Acme and Boutique demo connectors,
// a build when sources changed, then the production server (server/main.mjs: Next for the console,
// the data plane for agents' bearer calls, one port) on $PORT (3000).
import { spawn } from "node:child_process";
import { readFileSync } from "node:fs";
import path from "node:path";
import {
  checkNodeVersion,
  ensureAuthSecret,
  ensureBuild,
  ensureDependencies,
  ensurePrismaClients,
  root,
  sh,
  step,
} from "./setup.mjs";

checkNodeVersion();
ensureDependencies();
ensurePrismaClients();

const port = Number(process.env.PORT ?? 3000);
// Loopback only unless the operator says otherwise: the demo holds a demo API key and known passwords.
const host = process.env.HOST || "127.0.0.1";
// Where this script checks that the server answers: the bound address, or loopback when bound to every interface.
const probeHost = ["0.0.0.0", "::", "[::]"].includes(host) ? "127.0.0.1" : host.includes(":") ? `[${host}]` : host;
const dataDir = path.resolve(root, process.env.GUICHET_DATA_DIR ?? "data");
// The demo: asked for (GUICHET_SEED_DEMO=1), or the embedded database's default unless turned off (0).
const demo =
  process.env.GUICHET_SEED_DEMO === "1" || (!process.env.DATABASE_URL && process.env.GUICHET_SEED_DEMO !== "0");
const crmPort = Number(process.env.CRM_PORT ?? 4010);
const crmUrl = `http://127.0.0.1:${crmPort}/mcp`;
const boutiquePort = Number(process.env.BOUTIQUE_PORT ?? 4040);
const boutiqueUrl = `http://127.0.0.1:${boutiquePort}/mcp`;
ensureAuthSecret(dataDir);

const children = [];
function stopAll(code = 0) {
  for (const child of children) if (child.exitCode === null) child.kill("SIGTERM");
  process.exit(code);
}
process.on("SIGINT", () => stopAll(0));
process.on("SIGTERM", () => stopAll(0));

async function waitFor(url, child, name) {
  for (let i = 0; i < 150; i++) {
    if (child.exitCode !== null) throw new Error(`${name} exited (${child.exitCode})`);
    try {
      if ((await fetch(url)).ok) return;
    } catch {
      // not up yet
    }
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
  throw new Error(`${name} did not answer at ${url}`);
}

const env = {
  ...process.env,
  GUICHET_DATA_DIR: dataDir,
  GUICHET_DEMO_CRM_URL: process.env.GUICHET_DEMO_CRM_URL ?? crmUrl,
};
if (demo) {
  // The demo connector runs on loopback: its origin is granted to Acme only (Globex, or an organization
  // signed up later, cannot point a connector or a webhook at it). An agent's web_fetch still cannot
  // reach it, nor Guichet itself.
  env.GUICHET_PRIVATE_ORIGINS ??= `${new URL(env.GUICHET_DEMO_CRM_URL).origin}=acme`;
  step(`Starting the CRM Acme demo connector on ${crmUrl}`);
  const crm = spawn(process.execPath, ["node_modules/tsx/dist/cli.mjs", "connectors/acme-crm/main.ts"], {
    cwd: root,
    stdio: ["ignore", "inherit", "inherit"],
    env: { ...env, CRM_PORT: String(crmPort), CRM_DB: path.join(dataDir, "acme-crm.sqlite") },
  });
  children.push(crm);
  await waitFor(`http://127.0.0.1:${crmPort}/healthz`, crm, "CRM Acme");
  // Boutique: a demo shop whose MCP server needs each member's own OAuth sign-in (connectors/boutique).
  // Granted to Acme only, like CRM Acme. The seed signs Acme's owner in there to list its tools.
  env.GUICHET_DEMO_BOUTIQUE_URL ??= boutiqueUrl;
  env.GUICHET_PRIVATE_ORIGINS += `,${new URL(env.GUICHET_DEMO_BOUTIQUE_URL).origin}=acme`;
  env.NEXTAUTH_URL ??= `http://localhost:${port}`;
  step(`Starting the Boutique demo shop (OAuth MCP server) on ${boutiqueUrl}`);
  const boutique = spawn(process.execPath, ["node_modules/tsx/dist/cli.mjs", "connectors/boutique/main.ts"], {
    cwd: root,
    stdio: ["ignore", "ignore", "inherit"],
    env: { ...env, BOUTIQUE_PORT: String(boutiquePort), BOUTIQUE_DB: path.join(dataDir, "boutique.sqlite") },
  });
  children.push(boutique);
  await waitFor(`http://127.0.0.1:${boutiquePort}/.well-known/oauth-authorization-server`, boutique, "Boutique");
  // Managed runs need a model: without a provider of the operator's, the demo's models call
  // model-sim, which answers a French script (read C-1842, propose an address change). Scripted, not real.
  if (!process.env.GUICHET_MODEL_BASE_URL && !process.env.GUICHET_MODEL_API_KEY) {
    const simPort = Number(process.env.SIM_PORT ?? 4020);
    step(`Starting model-sim (scripted demo model) on http://127.0.0.1:${simPort}/v1`);
    const sim = spawn(process.execPath, ["node_modules/tsx/dist/cli.mjs", "connectors/model-sim/main.ts"], {
      cwd: root,
      stdio: ["ignore", "inherit", "inherit"],
      env: {
        ...env,
        SIM_PORT: String(simPort),
        SIM_SCRIPT: "connectors/model-sim/demo/address-change.json",
        SIM_SCRIPTS_DIR: "connectors/model-sim/demo",
      },
    });
    children.push(sim);
    await waitFor(`http://127.0.0.1:${simPort}/v1/models`, sim, "model-sim");
    env.GUICHET_MODEL_BASE_URL = `http://127.0.0.1:${simPort}/v1`;
    // The scripted model is the operator's shared service: every organization's managed runs may call it.
    env.GUICHET_PRIVATE_ORIGINS += `,http://127.0.0.1:${simPort}=*`;
  }
}

step("Applying migrations");
/** A step whose refusal the child already said in one line (a missing database, a demo seed over real data): no stack. */
function orStop(action) {
  try {
    action();
  } catch {
    stopAll(2);
  }
}
orStop(() => sh(process.execPath, ["scripts/migrate.mjs"], { env }));
step(demo ? "Seeding reference and demo data" : "Seeding reference data (plans, models)");
// react-server: the seed loads services marked `import "server-only"`, which refuse any other condition.
orStop(() =>
  sh(
    process.execPath,
    [
      "node_modules/tsx/dist/cli.mjs",
      "--conditions=react-server",
      "prisma/seed.ts",
      ...(demo ? [] : ["--reference-only"]),
    ],
    { env },
  ),
);

ensureBuild();

step(`Starting Guichet on http://localhost:${port} (listening on ${host})`);
const app = spawn(process.execPath, ["server/main.mjs", "-H", host, "-p", String(port)], {
  cwd: root,
  stdio: ["ignore", "inherit", "inherit"],
  env: {
    ...env,
    NODE_ENV: "production",
    NEXT_TELEMETRY_DISABLED: "1",
    NEXTAUTH_URL: process.env.NEXTAUTH_URL ?? `http://localhost:${port}`,
  },
});
children.push(app);
app.on("exit", (code) => stopAll(code ?? 1));
await waitFor(`http://${probeHost}:${port}/api/health`, app, "Guichet");

console.log(`\nGuichet is ready: http://localhost:${port}`);
if (demo) {
  console.log(
    "  Logins (password guichet-demo): owner@acme.test, admin@acme.test, dev@acme.test, approver@acme.test, viewer@acme.test, admin@globex.test",
  );
  console.log(
    `  Demo API key (Acme, every scope): ${readFileSync(path.join(dataDir, "demo-api-key"), "utf8").trim()}  (data/demo-api-key)`,
  );
  console.log(`  Try: curl -H "Authorization: Bearer $(cat data/demo-api-key)" http://localhost:${port}/v1/tools`);
  console.log(
    "  Boutique (per-member OAuth connector) shop accounts (password boutique-demo): dana@boutique.test, leo@boutique.test — connect one under Préférences › Mes connexions, then « Essayer » the agent « Commandes Boutique »",
  );
  // The widget demo: a shop page on a second origin with the bubble (scripts/demo-shop.mjs).
  const shopPort = Number(process.env.GUICHET_DEMO_SHOP_PORT ?? 4030);
  const shop = spawn(process.execPath, ["scripts/demo-shop.mjs"], {
    cwd: root,
    stdio: ["ignore", "ignore", "inherit"],
    env: { ...env, GUICHET_URL: `http://localhost:${port}`, GUICHET_DEMO_SHOP_PORT: String(shopPort) },
  });
  children.push(shop);
  console.log(`  Widget demo (the bubble on « another site »): http://localhost:${shopPort}`);
}
