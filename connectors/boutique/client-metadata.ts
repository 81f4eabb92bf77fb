// Client ID Metadata Documents (draft-ietf-oauth-client-id-metadata-document),
// which oidc-provider 8 does not offer: a client_id that is an https URL is
// resolved by fetching the JSON document at that URL. Boutique's artefact
// store answers oidc-provider's "Client" lookups with it, so the provider's
// own client-metadata validation (redirect URIs, grant types…) still applies.

export type FetchLike = (url: string, init: RequestInit) => Promise<Response>;

const MAX_BYTES = 5 * 1024;
const TIMEOUT_MS = 5_000;
const MIN_CACHE_S = 30;
const DEFAULT_CACHE_S = 300;
const MAX_CACHE_S = 86_400;
const SECRET_METHODS = new Set(["client_secret_basic", "client_secret_post", "client_secret_jwt"]);

/** An https URL with a path, no fragment, no credentials, no dot segments. */
export function isClientIdUrl(id: string): boolean {
  if (!/^https:\/\//i.test(id) || id.includes("#") || /[\s\\]/.test(id)) return false;
  let url: URL;
  try {
    url = new URL(id);
  } catch {
    return false;
  }
  if (url.username || url.password || url.pathname === "/") return false;
  const rawPath = id
    .slice("https://".length)
    .replace(/^[^/?]*/, "")
    .split("?")[0];
  return !rawPath.split("/").some((segment) => /^(\.|%2e){1,2}$/i.test(segment));
}

function cacheSeconds(res: Response): number {
  const m = /(?:^|,)\s*max-age\s*=\s*(\d+)/i.exec(res.headers.get("cache-control") ?? "");
  const seconds = m ? Number(m[1]) : DEFAULT_CACHE_S;
  return Math.max(MIN_CACHE_S, Math.min(MAX_CACHE_S, seconds));
}

async function readLimited(res: Response): Promise<string | null> {
  if (!res.body) return "";
  const reader = res.body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.byteLength;
    if (size > MAX_BYTES) {
      await reader.cancel();
      return null;
    }
    chunks.push(value);
  }
  return Buffer.concat(chunks).toString("utf8");
}

export class ClientMetadataDocuments {
  private readonly cache = new Map<string, { metadata: Record<string, unknown>; until: number }>();
  /** Fetches made, per client_id URL (for the tests: cached documents are not fetched again). */
  readonly fetches = new Map<string, number>();

  constructor(private readonly fetchFn: FetchLike = (url, init) => fetch(url, init)) {}

  /** The client metadata for oidc-provider, or undefined (then the client is unknown: invalid_client). */
  async resolve(clientId: string): Promise<Record<string, unknown> | undefined> {
    if (!isClientIdUrl(clientId)) return undefined;
    const cached = this.cache.get(clientId);
    if (cached && cached.until > Date.now()) return cached.metadata;
    this.fetches.set(clientId, (this.fetches.get(clientId) ?? 0) + 1);
    let res: Response;
    try {
      res = await this.fetchFn(clientId, {
        headers: { accept: "application/json" },
        redirect: "manual",
        signal: AbortSignal.timeout(TIMEOUT_MS),
      });
    } catch {
      return undefined;
    }
    if (res.status !== 200) return undefined;
    const text = await readLimited(res).catch(() => null);
    if (text === null) return undefined;
    let doc: unknown;
    try {
      doc = JSON.parse(text);
    } catch {
      return undefined;
    }
    if (!doc || typeof doc !== "object" || Array.isArray(doc)) return undefined;
    const metadata = doc as Record<string, unknown>;
    // The document speaks for its own URL only, and a client whose metadata is public holds no shared secret.
    if (metadata.client_id !== clientId) return undefined;
    if ("client_secret" in metadata || "client_secret_expires_at" in metadata) return undefined;
    const method = metadata.token_endpoint_auth_method ?? "none";
    if (typeof method !== "string" || SECRET_METHODS.has(method)) return undefined;
    const resolved = {
      grant_types: ["authorization_code", "refresh_token"],
      response_types: ["code"],
      ...metadata,
      token_endpoint_auth_method: method,
    };
    this.cache.set(clientId, { metadata: resolved, until: Date.now() + cacheSeconds(res) * 1000 });
    return resolved;
  }
}
