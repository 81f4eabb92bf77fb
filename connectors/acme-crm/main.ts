import { startAcmeCrm } from "./server";

// CLI: npx tsx connectors/acme-crm/main.ts
// Env: CRM_PORT (4010), CRM_HOST (127.0.0.1), CRM_DB (data/acme-crm.sqlite),
//      CRM_TOKEN (optional bearer token), CRM_ENABLE_CONTROL ("1" enables /__control/*).

async function main() {
  const port = Number(process.env.CRM_PORT ?? 4010);
  if (!Number.isInteger(port) || port < 0 || port > 65535)
    throw new Error(`CRM_PORT is not a port: ${process.env.CRM_PORT}`);
  const crm = await startAcmeCrm({
    port,
    host: process.env.CRM_HOST || "127.0.0.1",
    dbPath: process.env.CRM_DB || "data/acme-crm.sqlite",
    token: process.env.CRM_TOKEN || undefined,
    enableControl: process.env.CRM_ENABLE_CONTROL === "1",
  });
  console.log(`CRM Acme MCP server on ${crm.url}`);

  let stopping = false;
  const stop = (signal: string) => {
    if (stopping) return;
    stopping = true;
    crm.close().then(
      () => process.exit(0),
      (err) => {
        console.error(`[acme-crm] error while stopping on ${signal}:`, err);
        process.exit(1);
      },
    );
  };
  process.on("SIGTERM", () => stop("SIGTERM"));
  process.on("SIGINT", () => stop("SIGINT"));
}

main().catch((err) => {
  console.error("[acme-crm] failed to start:", err);
  process.exit(1);
});
