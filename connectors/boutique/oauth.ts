import { randomBytes } from "node:crypto";
import type { IncomingMessage, ServerResponse } from "node:http";
import { exportJWK, generateKeyPair, type JWK } from "jose";
import Provider, {
  errors,
  type Adapter,
  type AdapterPayload,
  type ClientMetadata,
  type Configuration,
} from "oidc-provider";
import { BodyTooLarge, readBody } from "../acme-crm/http";
import { ClientMetadataDocuments } from "./client-metadata";
import { accountById, checkCredentials, DEMO_ACCOUNTS } from "./accounts";
import { consentPage, errorPage, loginPage } from "./pages";

// Boutique's authorization server: oidc-provider (OAuth 2.1 / OpenID Connect)
// with the profile the MCP authorization specification asks of one —
// authorization code with PKCE S256 only, `iss` in the authorization response
// (RFC 9207), resource indicators (RFC 8707) whose access tokens are JWTs for
// the named resource, refresh tokens rotated on every use, open Dynamic Client
// Registration (RFC 7591), pre-registered clients, Client ID Metadata
// Documents, RFC 8414 and OpenID discovery. Accounts sign in on Boutique's own French login and consent pages.

/** The scope of Boutique's MCP resource. */
export const ORDERS_SCOPE = "orders";

export interface PreRegisteredClient {
  clientId: string;
  /** Absent: a public client (PKCE, no secret). */
  clientSecret?: string;
  redirectUris: string[];
  clientName?: string;
}

export interface OAuthOptions {
  issuer: string;
  /** The MCP resource: the audience of the access tokens it accepts. */
  mcpUrl: string;
  /** A second resource of the shop, so tests can hold a valid token for another audience. */
  otherResourceUrl: string;
  accessTokenTtlSeconds: () => number;
  clients: PreRegisteredClient[];
  onRefresh: (accountId: string | undefined) => void;
}

/**
 * In-memory storage of the provider's artefacts that can also find them by
 * account, so the control API can revoke everything an account granted.
 */
export class ArtefactStore {
  constructor(readonly clientDocuments = new ClientMetadataDocuments()) {}

  private readonly entries = new Map<string, { model: string; payload: AdapterPayload; expiresAt: number | null }>();
  private writes = 0;

  /** Forgets expired artefacts, so a long-running demo does not grow without end. */
  private sweep(): void {
    const now = Date.now();
    for (const [k, entry] of this.entries)
      if (entry.expiresAt !== null && entry.expiresAt <= now) this.entries.delete(k);
  }

  adapterFor = (model: string): Adapter => {
    const key = (id: string) => `${model}:${id}`;
    const live = (id: string) => {
      const entry = this.entries.get(key(id));
      if (!entry) return undefined;
      if (entry.expiresAt !== null && entry.expiresAt <= Date.now()) {
        this.entries.delete(key(id));
        return undefined;
      }
      return entry;
    };
    return {
      upsert: async (id, payload, expiresIn) => {
        if (++this.writes % 500 === 0) this.sweep();
        this.entries.set(key(id), { model, payload, expiresAt: expiresIn ? Date.now() + expiresIn * 1000 : null });
      },
      find: async (id) => {
        const stored = live(id)?.payload;
        // An https client_id nobody registered here: its Client ID Metadata Document.
        if (!stored && model === "Client")
          return this.clientDocuments.resolve(id) as Promise<AdapterPayload | undefined>;
        return stored;
      },
      findByUserCode: async () => undefined,
      findByUid: async (uid) => {
        for (const [k, entry] of this.entries) {
          if (entry.model === model && entry.payload.uid === uid) return live(k.slice(model.length + 1))?.payload;
        }
        return undefined;
      },
      consume: async (id) => {
        const entry = live(id);
        if (entry) entry.payload.consumed = Math.floor(Date.now() / 1000);
      },
      destroy: async (id) => {
        this.entries.delete(key(id));
      },
      revokeByGrantId: async (grantId) => {
        for (const [k, entry] of this.entries) if (entry.payload.grantId === grantId) this.entries.delete(k);
      },
    };
  };

  /** Drops every grant, code and refresh token of the account; returns how many grants it had. */
  revokeAccount(accountId: string): number {
    const grants = new Set<string>();
    for (const entry of this.entries.values()) {
      if (entry.payload.accountId === accountId && entry.model === "Grant" && entry.payload.jti) {
        grants.add(entry.payload.jti);
      }
    }
    for (const [k, entry] of this.entries) {
      if (entry.payload.accountId === accountId || (entry.payload.grantId && grants.has(entry.payload.grantId))) {
        this.entries.delete(k);
      }
    }
    return grants.size;
  }

  /** Live refresh tokens per account, for the control API. */
  refreshTokensOf(accountId: string): number {
    let n = 0;
    for (const [k, entry] of this.entries) {
      if (entry.model !== "RefreshToken" || entry.payload.accountId !== accountId || entry.payload.consumed) continue;
      if (entry.expiresAt === null || entry.expiresAt > Date.now()) n += 1;
      else this.entries.delete(k);
    }
    return n;
  }
}

export interface SigningKeys {
  privateJwk: JWK;
  publicJwk: JWK;
}

export async function newSigningKeys(): Promise<SigningKeys> {
  const { privateKey, publicKey } = await generateKeyPair("RS256", { extractable: true });
  const kid = randomBytes(8).toString("hex");
  return {
    privateJwk: { ...(await exportJWK(privateKey)), kid, alg: "RS256", use: "sig" },
    publicJwk: { ...(await exportJWK(publicKey)), kid, alg: "RS256", use: "sig" },
  };
}

function toClientMetadata(c: PreRegisteredClient): ClientMetadata {
  return {
    client_id: c.clientId,
    ...(c.clientSecret ? { client_secret: c.clientSecret } : { token_endpoint_auth_method: "none" }),
    client_name: c.clientName ?? c.clientId,
    redirect_uris: c.redirectUris,
    grant_types: ["authorization_code", "refresh_token"],
    response_types: ["code"],
  };
}

export function createProvider(opts: OAuthOptions, store: ArtefactStore, keys: SigningKeys): Provider {
  const resourceServer = (audience: string) => ({
    scope: ORDERS_SCOPE,
    audience,
    accessTokenTTL: opts.accessTokenTtlSeconds(),
    accessTokenFormat: "jwt" as const,
    jwt: { sign: { alg: "RS256" as const } },
  });

  const configuration: Configuration = {
    adapter: store.adapterFor,
    clients: opts.clients.map(toClientMetadata),
    clientDefaults: {
      grant_types: ["authorization_code", "refresh_token"],
      response_types: ["code"],
      token_endpoint_auth_method: "client_secret_basic",
      id_token_signed_response_alg: "RS256",
    },
    jwks: { keys: [keys.privateJwk] },
    cookies: { keys: [randomBytes(32).toString("base64url")] },
    responseTypes: ["code"],
    scopes: ["openid", "offline_access", ORDERS_SCOPE],
    // Client ID Metadata Documents are resolved by the artefact store (client-metadata.ts).
    discovery: { client_id_metadata_document_supported: true },
    claims: { openid: ["sub"], email: ["email", "email_verified"], profile: ["name"] },
    pkce: { methods: ["S256"], required: () => true },
    clientAuthMethods: ["none", "client_secret_basic", "client_secret_post"],
    async findAccount(_ctx, sub) {
      const account = accountById(sub);
      if (!account) return undefined;
      return {
        accountId: account.id,
        async claims() {
          return { sub: account.id, email: account.email, email_verified: true, name: account.name };
        },
      };
    },
    interactions: { url: (_ctx, interaction) => `/interaction/${interaction.uid}` },
    features: {
      devInteractions: { enabled: false },
      registration: { enabled: true, initialAccessToken: false },
      revocation: { enabled: true },
      userinfo: { enabled: true },
      resourceIndicators: {
        enabled: true,
        // A client that names no resource gets the MCP server's.
        defaultResource: async (_ctx, _client, oneOf) => oneOf ?? opts.mcpUrl,
        useGrantedResource: async () => true,
        getResourceServerInfo: async (_ctx, resource) => {
          if (resource === opts.mcpUrl || resource === opts.otherResourceUrl) return resourceServer(resource);
          throw new errors.InvalidTarget(`unknown resource ${resource}`);
        },
      },
    },
    // The grant behind an access token travels in it, so the MCP server refuses tokens of a revoked grant at once.
    extraTokenClaims: async (_ctx, token) => ("grantId" in token && token.grantId ? { gid: token.grantId } : undefined),
    // Refresh tokens for every client allowed the grant, not only with offline_access, and not tied to the browser session.
    issueRefreshToken: async (_ctx, client) => client.grantTypeAllowed("refresh_token"),
    expiresWithSession: async () => false,
    rotateRefreshToken: true,
    ttl: {
      AccessToken: () => opts.accessTokenTtlSeconds(),
      AuthorizationCode: 60,
      IdToken: 3600,
      RefreshToken: 14 * 24 * 3600,
      Interaction: 3600,
      Session: 14 * 24 * 3600,
      Grant: 14 * 24 * 3600,
    },
    async renderError(ctx, out) {
      ctx.type = "html";
      ctx.body = errorPage(out.error, out.error_description);
    },
  };

  const provider = new Provider(opts.issuer, configuration);
  provider.on("grant.success", (ctx) => {
    if (ctx.oidc.params?.grant_type === "refresh_token") opts.onRefresh(ctx.oidc.entities.Account?.accountId);
  });
  return provider;
}

function html(res: ServerResponse, status: number, body: string): void {
  res.writeHead(status, {
    "content-type": "text/html; charset=utf-8",
    "content-length": Buffer.byteLength(body),
    "cache-control": "no-store",
    "x-frame-options": "DENY",
  });
  res.end(body);
}

/** The posted form, or null when it is over 64 KiB. */
async function readForm(req: IncomingMessage): Promise<URLSearchParams | null> {
  try {
    return new URLSearchParams(await readBody(req, 64 * 1024));
  } catch (e) {
    if (e instanceof BodyTooLarge) return null;
    throw e;
  }
}

const EXPIRED = "Cette demande de connexion a expiré ou n’existe pas. Recommencez depuis l’application.";

/**
 * Boutique's own interaction pages: GET /interaction/:uid shows the login or
 * the consent page, POST …/login signs an account in, POST …/confirm grants
 * what the client asked for, POST …/abort refuses. Returns false for other paths.
 */
export async function handleInteraction(
  provider: Provider,
  req: IncomingMessage,
  res: ServerResponse,
  pathname: string,
): Promise<boolean> {
  const match = /^\/interaction\/([A-Za-z0-9_-]+)(?:\/(login|confirm|abort))?$/.exec(pathname);
  if (!match) return false;
  const action = match[2] ?? null;
  let details: Awaited<ReturnType<Provider["interactionDetails"]>>;
  try {
    details = await provider.interactionDetails(req, res);
  } catch {
    html(res, 400, errorPage("invalid_request", EXPIRED));
    return true;
  }
  if (details.uid !== match[1]) {
    html(res, 400, errorPage("invalid_request", "Cette demande de connexion ne correspond pas à votre navigateur."));
    return true;
  }
  const client = await provider.Client.find(String(details.params.client_id));
  const clientName = client?.clientName ?? String(details.params.client_id);

  if (action === null && req.method === "GET") {
    if (details.prompt.name === "login") {
      html(res, 200, loginPage({ uid: details.uid, clientName, accounts: DEMO_ACCOUNTS.map((a) => a.email) }));
    } else {
      const account = accountById(String(details.session?.accountId));
      html(
        res,
        200,
        consentPage({
          uid: details.uid,
          clientName,
          accountEmail: account?.email ?? "",
          resource: typeof details.params.resource === "string" ? details.params.resource : null,
        }),
      );
    }
    return true;
  }
  if (req.method !== "POST") {
    res.writeHead(405, { allow: action === null ? "GET" : "POST" }).end();
    return true;
  }
  const form = await readForm(req);
  if (!form) {
    html(res, 413, errorPage("invalid_request", "Formulaire trop volumineux."));
    return true;
  }
  if (action === "login") {
    const account = checkCredentials(form.get("email") ?? "", form.get("password") ?? "");
    if (!account) {
      html(
        res,
        401,
        loginPage({
          uid: details.uid,
          clientName,
          accounts: DEMO_ACCOUNTS.map((a) => a.email),
          email: form.get("email") ?? "",
          error: "Adresse e-mail ou mot de passe incorrect.",
        }),
      );
      return true;
    }
    await provider.interactionFinished(
      req,
      res,
      { login: { accountId: account.id } },
      { mergeWithLastSubmission: false },
    );
    return true;
  }
  if (action === "abort") {
    await provider.interactionFinished(
      req,
      res,
      { error: "access_denied", error_description: "The customer refused the access." },
      { mergeWithLastSubmission: false },
    );
    return true;
  }
  // confirm
  if (details.prompt.name !== "consent" || !details.session?.accountId) {
    html(res, 400, errorPage("invalid_request", "Connectez-vous d’abord."));
    return true;
  }
  const { Grant } = provider;
  const existing = details.grantId ? await Grant.find(details.grantId) : undefined;
  const grant =
    existing ?? new Grant({ accountId: details.session.accountId, clientId: String(details.params.client_id) });
  const missing = details.prompt.details as {
    missingOIDCScope?: string[];
    missingOIDCClaims?: string[];
    missingResourceScopes?: Record<string, string[]>;
  };
  if (missing.missingOIDCScope) grant.addOIDCScope(missing.missingOIDCScope.join(" "));
  if (missing.missingOIDCClaims) grant.addOIDCClaims(missing.missingOIDCClaims);
  for (const [indicator, scopes] of Object.entries(missing.missingResourceScopes ?? {})) {
    grant.addResourceScope(indicator, scopes.join(" "));
  }
  const grantId = await grant.save();
  await provider.interactionFinished(
    req,
    res,
    { consent: existing ? {} : { grantId } },
    { mergeWithLastSubmission: true },
  );
  return true;
}
