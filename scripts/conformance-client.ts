// The client command the official MCP conformance suite runs for its client
// authorization scenarios (`conformance client --suite auth`, through
// scripts/mcp-conformance.mjs): it connects to the scenario's MCP server the
// way Guichet connects a member to an `oauth` connector, with the same code
// (lib/connections/oauth.ts on the MCP SDK's client auth module): discovery
// from the server's 401 and metadata, registration (Client ID Metadata
// Document, Dynamic Client Registration, or the pre-registered client an admin
// would enter), authorization code with PKCE S256, state, iss and the resource
// indicator, token exchange, then Guichet's MCP client (lib/mcp/remote.ts) with
// the token: tools/list and a call of the scenario's tool.
//
// What Guichet keeps in its database (the registration, the pending sign-in)
// is kept in memory here: the command needs no database. The member's browser
// is played by following the authorization endpoint's redirect without
// following it to the callback: the code, state and iss are read from it.
//
// Usage (the suite appends the server URL): tsx --conditions=react-server scripts/conformance-client.ts <mcp url>
// MCP_CONFORMANCE_SCENARIO names the scenario; MCP_CONFORMANCE_CONTEXT holds
// its pre-registered client (client_id, client_secret) when it has one.
import { randomBytes } from "node:crypto";

// The sealing key of the client secrets Guichet stores (lib/mcp/secrets.ts): a throwaway one, read at import.
process.env.GUICHET_ENCRYPTION_KEY ??= randomBytes(32).toString("hex");

const serverUrl = process.argv[2];
if (!serverUrl) {
  console.error("usage: conformance-client <mcp server url>");
  process.exit(2);
}

// This instance's origin as the upstream sees it. https, as in production: the
// client id is then Guichet's Client ID Metadata Document where the
// authorization server takes one. The callback is never visited: the
// authorization endpoint's redirect to it is read instead.
const ORIGIN = "https://guichet.conformance.test";

async function main(url: string): Promise<void> {
  // Imported once the key is set: lib/env reads the environment when it loads.
  const { pinnedFetch } = await import("@/lib/net/pinned-fetch");
  const { sealBoundSecret } = await import("@/lib/mcp/secrets");
  const { beginAuthorization, callbackUrl, clientRegistration, discoverUpstream, exchangeCode, issuerMismatch } =
    await import("@/lib/connections/oauth");
  const { withMcpClient, McpFailure } = await import("@/lib/mcp/remote");
  const serverUrl = url;

  // The scenario's servers listen on loopback: granted origin by origin, as an
  // operator grants a private connector's origins to an organization; every other
  // address is refused as in production.
  const fetchFn = (url: string | URL, init?: RequestInit) => {
    const origin = new URL(String(url)).origin;
    const loopback = /^http:\/\/(localhost|127\.0\.0\.1|\[::1\])(:\d+)?$/.test(origin);
    return pinnedFetch({ privateOrigins: loopback ? [origin] : [] })(url, init);
  };

  /** What the database's McpOAuthRegistration table holds, in memory, with the two calls clientRegistration makes. */
  function memoryRegistrations(): import("@/lib/db").DbOrTx {
    const rows = new Map<number, Record<string, unknown>>();
    return {
      mcpOAuthRegistration: {
        findUnique: async ({ where }: { where: { serverId: number } }) => rows.get(where.serverId) ?? null,
        upsert: async ({
          where,
          create,
          update,
        }: {
          where: { serverId: number };
          create: Record<string, unknown>;
          update: Record<string, unknown>;
        }) => {
          const row = rows.has(where.serverId) ? { ...rows.get(where.serverId), ...update } : create;
          rows.set(where.serverId, row);
          return row;
        },
      },
    } as unknown as import("@/lib/db").DbOrTx;
  }

  const context = JSON.parse(process.env.MCP_CONFORMANCE_CONTEXT ?? "{}") as {
    client_id?: string;
    client_secret?: string;
  };
  const SERVER_ID = 1;
  const serverOrigin = new URL(serverUrl).origin;
  // The connector as an admin configured it: its URL and, for a pre-registered client, its id and sealed secret.
  const server = {
    id: SERVER_ID,
    organizationId: "conformance",
    url: serverUrl,
    oauthClientId: context.client_id ?? null,
    oauthClientSecretCiphertext: context.client_secret
      ? sealBoundSecret(context.client_secret, serverOrigin, { serverId: SERVER_ID })
      : null,
  };
  const store = memoryRegistrations();

  async function signIn(): Promise<string> {
    const auth = await discoverUpstream(serverUrl, fetchFn);
    const registration = await clientRegistration(server, auth, ORIGIN, fetchFn, store);
    const state = randomBytes(32).toString("base64url");
    const redirectUri = callbackUrl(ORIGIN);
    const { authorizationUrl, codeVerifier } = await beginAuthorization(auth, registration, redirectUri, state);
    // The member's browser at the authorization server: it answers with a redirect to Guichet's callback.
    const answer = await fetchFn(authorizationUrl);
    await answer.body?.cancel().catch(() => undefined);
    const location = answer.headers.get("location");
    if (answer.status < 300 || answer.status >= 400 || !location)
      throw new Error(`The authorization endpoint answered ${answer.status} without a redirect.`);
    const callback = new URL(location, authorizationUrl);
    if (`${callback.origin}${callback.pathname}` !== redirectUri)
      throw new Error("The authorization endpoint redirected elsewhere than the callback.");
    const params = callback.searchParams;
    // The callback's checks (lib/connections/authorize.ts): the state sent, the issuer discovered, a code.
    if (params.get("state") !== state) throw new Error("The callback's state is not the one sent.");
    if (issuerMismatch(auth, auth.issuer, params))
      throw new Error("The callback does not come from the authorization server discovered.");
    const code = params.get("code");
    if (!code) throw new Error("The callback carries no code.");
    const tokens = await exchangeCode(auth, registration, { code, codeVerifier, redirectUri }, fetchFn);
    return tokens.access_token;
  }

  async function callServer(token: string | null): Promise<void> {
    await withMcpClient(
      { url: serverUrl, token },
      async (client) => {
        const { tools } = await client.listTools();
        if (tools[0]) await client.callTool({ name: tools[0].name, arguments: {} });
      },
      { policy: { privateOrigins: [serverOrigin] } },
    );
  }

  // Without a token first, as a connector is added: the server's 401 is where discovery starts.
  await callServer(null).then(
    () => {
      throw new Error("The server answered without authorization.");
    },
    (error: unknown) => {
      if (!(error instanceof McpFailure && error.kind === "unauthorized")) throw error;
    },
  );
  await callServer(await signIn());
}

main(serverUrl).then(
  () => {
    console.log(`${process.env.MCP_CONFORMANCE_SCENARIO ?? "scenario"}: connected, listed tools and called one`);
    process.exit(0);
  },
  (error: unknown) => {
    console.error(error instanceof Error ? `${error.name}: ${error.message}` : String(error));
    process.exit(1);
  },
);
