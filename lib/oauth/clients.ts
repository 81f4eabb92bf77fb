import "server-only";
import { OAuthClientMetadataSchema } from "@modelcontextprotocol/sdk/shared/auth.js";
import { InvalidClientError, InvalidClientMetadataError } from "@modelcontextprotocol/sdk/server/auth/errors.js";
import { z } from "zod";
import { recordAudit } from "@/lib/audit/record";
import { db } from "@/lib/db";
import { newId } from "@/lib/ids";
import { safeFetch, SafeFetchError } from "@/lib/net/safe-fetch";
import { UrlNotAllowedError } from "@/lib/net/ssrf";

// The clients of Guichet's authorization server. All are public (PKCE, no
// secret). Two ways to be known: a Client ID Metadata Document — the client_id
// is an https URL Guichet fetches under the network policy, as a stranger chose
// it — or Dynamic Client Registration (RFC 7591), the fallback.

export interface OAuthClientRow {
  id: string;
  clientId: string;
  kind: string;
  name: string;
  uri: string | null;
  logoUri: string | null;
  redirectUris: string[];
}

const clientSelect = {
  id: true,
  clientId: true,
  kind: true,
  name: true,
  uri: true,
  logoUri: true,
  redirectUris: true,
  refreshAt: true,
} as const;

/** A metadata document is small; past this it is refused, not truncated. */
export const METADATA_DOCUMENT_MAX_BYTES = 5 * 1024;
export const METADATA_DOCUMENT_TIMEOUT_MS = 3_000;
/** How long a fetched document is trusted before the next authorization fetches it again. */
const METADATA_DOCUMENT_CACHE_MS = 60 * 60 * 1000;

const FORBIDDEN_SCHEMES = new Set(["javascript:", "data:", "vbscript:", "file:", "blob:", "about:"]);

function isLoopbackHost(hostname: string): boolean {
  return hostname === "127.0.0.1" || hostname === "[::1]" || hostname === "localhost";
}

/** A redirect URI a client may register: https, http on loopback (RFC 8252 §7.3), or a private-use scheme (§7.1). */
export function acceptableRedirectUri(value: string): boolean {
  if (!URL.canParse(value) || value.length > 2000 || value.includes("#")) return false;
  const url = new URL(value);
  if (FORBIDDEN_SCHEMES.has(url.protocol) || url.username || url.password) return false;
  if (url.protocol === "http:") return isLoopbackHost(url.hostname);
  return true;
}

/**
 * Whether `requested` is one of the client's redirect URIs: exactly the same
 * string, except that a loopback http URI matches on any port (RFC 8252 §7.3:
 * native apps get an ephemeral port at each sign-in).
 */
export function redirectUriMatches(registered: readonly string[], requested: string): boolean {
  if (registered.includes(requested)) return true;
  if (!URL.canParse(requested)) return false;
  const asked = new URL(requested);
  if (asked.protocol !== "http:" || !isLoopbackHost(asked.hostname)) return false;
  return registered.some((value) => {
    const known = new URL(value);
    return (
      known.protocol === "http:" &&
      known.hostname === asked.hostname &&
      known.pathname === asked.pathname &&
      known.search === asked.search
    );
  });
}

const ClientMetadata = OAuthClientMetadataSchema.extend({
  redirect_uris: z.array(z.string()).min(1).max(10),
  client_name: z.string().max(100).optional(),
});

/** The metadata Guichet keeps of a client, checked the same way for both ways of being known. */
function checkedMetadata(raw: unknown): {
  name: string;
  uri: string | null;
  logoUri: string | null;
  redirectUris: string[];
} {
  const parsed = ClientMetadata.safeParse(raw);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    throw new InvalidClientMetadataError(`${issue.path.join(".") || "metadata"}: ${issue.message}`);
  }
  const meta = parsed.data;
  const bad = meta.redirect_uris.find((uri) => !acceptableRedirectUri(uri));
  if (bad !== undefined)
    throw new InvalidClientMetadataError(
      "redirect_uris: each must be https, http on a loopback address, or a private-use scheme, without fragment.",
    );
  if (meta.grant_types && meta.grant_types.some((grant) => !["authorization_code", "refresh_token"].includes(grant)))
    throw new InvalidClientMetadataError("grant_types: only authorization_code and refresh_token are supported.");
  if (meta.response_types && meta.response_types.some((type) => type !== "code"))
    throw new InvalidClientMetadataError("response_types: only code is supported.");
  const https = (value: string | undefined) =>
    value && URL.canParse(value) && new URL(value).protocol === "https:" ? value.slice(0, 500) : null;
  return {
    name: (meta.client_name ?? "").trim() || "Application sans nom",
    uri: https(meta.client_uri),
    logoUri: https(meta.logo_uri),
    redirectUris: [...new Set(meta.redirect_uris)],
  };
}

/** RFC 7591 registration: a public client with Guichet's own client_id. */
export async function registerClient(raw: unknown, from: string) {
  const meta = checkedMetadata(raw);
  const id = newId("ocl");
  await db.$transaction(async (tx) => {
    await tx.oAuthClient.create({
      data: { id, clientId: id, kind: "registered", ...meta, createdFrom: from.slice(0, 100) },
    });
    await recordAudit(
      {
        organizationId: null,
        actor: { type: "anonymous", label: from.slice(0, 100) },
        action: "oauth_client.registered",
        target: { type: "oauth_client", id },
        details: { name: meta.name.slice(0, 100) },
      },
      tx,
    );
  });
  return {
    client_id: id,
    client_id_issued_at: Math.floor(Date.now() / 1000),
    client_name: meta.name,
    ...(meta.uri ? { client_uri: meta.uri } : {}),
    ...(meta.logoUri ? { logo_uri: meta.logoUri } : {}),
    redirect_uris: meta.redirectUris,
    grant_types: ["authorization_code", "refresh_token"],
    response_types: ["code"],
    token_endpoint_auth_method: "none",
  };
}

/** Whether a client_id is a metadata document's URL (an https URL with a path), as the MCP specification defines it. */
export function isMetadataDocumentId(clientId: string): boolean {
  if (!URL.canParse(clientId)) return false;
  const url = new URL(clientId);
  return url.protocol === "https:" && url.pathname !== "/" && !url.hash && !url.username && !url.password;
}

async function fetchMetadataDocument(clientId: string) {
  let response;
  try {
    response = await safeFetch(clientId, {
      maxBytes: METADATA_DOCUMENT_MAX_BYTES,
      timeoutMs: METADATA_DOCUMENT_TIMEOUT_MS,
      maxRedirects: 0,
      headers: { accept: "application/json" },
    });
  } catch (error) {
    if (error instanceof UrlNotAllowedError)
      throw new InvalidClientError(`The client metadata document's address is not allowed: ${error.message}.`);
    if (error instanceof SafeFetchError)
      throw new InvalidClientError(`The client metadata document could not be fetched (${error.kind}).`);
    throw error;
  }
  if (response.truncated)
    throw new InvalidClientError(`The client metadata document exceeds ${METADATA_DOCUMENT_MAX_BYTES} bytes.`);
  if (response.status !== 200)
    throw new InvalidClientError(`The client metadata document answered HTTP ${response.status}.`);
  let raw: unknown;
  try {
    raw = JSON.parse(response.body.toString("utf8"));
  } catch {
    throw new InvalidClientError("The client metadata document is not JSON.");
  }
  if (typeof raw !== "object" || raw === null || (raw as { client_id?: unknown }).client_id !== clientId)
    throw new InvalidClientError("The client metadata document's client_id must equal its URL.");
  return checkedMetadata(raw);
}

/** The client a client_id names: registered, or its metadata document (cached, fetched again once stale). */
export async function resolveClient(clientId: string, now = new Date()): Promise<OAuthClientRow> {
  if (clientId.length > 2000) throw new InvalidClientError("Unknown client_id.");
  const row = await db.oAuthClient.findUnique({ where: { clientId }, select: clientSelect });
  if (row && (row.kind === "registered" || (row.refreshAt && row.refreshAt > now))) return shaped(row);
  if (!isMetadataDocumentId(clientId)) throw new InvalidClientError("Unknown client_id.");
  const meta = await fetchMetadataDocument(clientId);
  const refreshAt = new Date(now.getTime() + METADATA_DOCUMENT_CACHE_MS);
  const saved = await db.oAuthClient.upsert({
    where: { clientId },
    create: { id: newId("ocl"), clientId, kind: "metadata_document", ...meta, refreshAt },
    update: { ...meta, refreshAt },
    select: clientSelect,
  });
  return shaped(saved);
}

function shaped(row: { redirectUris: unknown } & Omit<OAuthClientRow, "redirectUris">): OAuthClientRow {
  const { id, clientId, kind, name, uri, logoUri } = row;
  const redirectUris = z.array(z.string()).catch([]).parse(row.redirectUris);
  return { id, clientId, kind, name, uri, logoUri, redirectUris };
}
