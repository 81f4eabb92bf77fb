import { startBoutique } from "./server";

// CLI: npx tsx connectors/boutique/main.ts (npm run boutique)
// Env: BOUTIQUE_PORT (4020), BOUTIQUE_HOST (127.0.0.1), BOUTIQUE_ISSUER (public base URL, default http://HOST:PORT),
//      BOUTIQUE_ACCESS_TOKEN_TTL (seconds, 900), BOUTIQUE_DB (SQLite file, default in memory),
//      BOUTIQUE_ENABLE_CONTROL ("1" enables /__control/*),
//      BOUTIQUE_CLIENT_ID / BOUTIQUE_CLIENT_SECRET / BOUTIQUE_CLIENT_REDIRECT_URIS (comma-separated): a pre-registered client.

function intEnv(name: string, fallback: number, min: number, max: number): number {
  const raw = process.env[name];
  if (raw === undefined || raw === "") return fallback;
  const n = Number(raw);
  if (!Number.isInteger(n) || n < min || n > max)
    throw new Error(`${name} must be an integer in ${min}..${max}: ${raw}`);
  return n;
}

async function main() {
  const clientId = process.env.BOUTIQUE_CLIENT_ID;
  const redirectUris = (process.env.BOUTIQUE_CLIENT_REDIRECT_URIS ?? "")
    .split(",")
    .map((s) => s.trim())
    .filter(Boolean);
  if (clientId && redirectUris.length === 0) throw new Error("BOUTIQUE_CLIENT_ID needs BOUTIQUE_CLIENT_REDIRECT_URIS");
  const boutique = await startBoutique({
    port: intEnv("BOUTIQUE_PORT", 4020, 0, 65535),
    host: process.env.BOUTIQUE_HOST || "127.0.0.1",
    issuerUrl: process.env.BOUTIQUE_ISSUER || undefined,
    accessTokenTtlSeconds: intEnv("BOUTIQUE_ACCESS_TOKEN_TTL", 900, 1, 86_400),
    dbPath: process.env.BOUTIQUE_DB || undefined,
    controls: process.env.BOUTIQUE_ENABLE_CONTROL === "1",
    clients: clientId
      ? [{ clientId, clientSecret: process.env.BOUTIQUE_CLIENT_SECRET || undefined, redirectUris }]
      : [],
  });
  const accounts = boutique.accounts.map((a) => a.email).join(", ");
  console.log(
    `Boutique (OAuth MCP server) on ${boutique.mcpUrl}, authorization server ${boutique.issuer} — comptes : ${accounts}, mot de passe : ${boutique.accounts[0].password}`,
  );

  let stopping = false;
  const stop = (signal: string) => {
    if (stopping) return;
    stopping = true;
    boutique.close().then(
      () => process.exit(0),
      (err) => {
        console.error(`[boutique] error while stopping on ${signal}:`, err);
        process.exit(1);
      },
    );
  };
  process.on("SIGTERM", () => stop("SIGTERM"));
  process.on("SIGINT", () => stop("SIGINT"));
}

main().catch((err) => {
  console.error("[boutique] failed to start:", err);
  process.exit(1);
});
