import "server-only";
import { recordAudit, type AuditActor } from "@/lib/audit/record";
import { db, inTransaction, type DbOrTx } from "@/lib/db";
import { ApiError, notFound } from "@/lib/http/errors";
import { assertAdminUrl } from "@/lib/net/origin-grants";
import { isoOffset, isoOffsetOrNull } from "@/lib/time";
import {
  McpAuthMode,
  SyncErrorObject,
  type McpServerCreateBody,
  type McpServerObject,
  type McpServerUpdateBody,
} from "./api";
import { McpFailure, type McpEndpoint } from "./remote";
import { decryptSecret, encryptSecret, openBoundSecret, sealBoundSecret } from "./secrets";
import { dropServerCredentials } from "@/lib/connections/service";
import { forgetDiscovery } from "@/lib/connections/oauth";
import { dropMcpSessions } from "./session-pool";

// MCP servers of an organization: create, read, update, delete. Every query is
// scoped by organization; another organization's server is simply not found.

export const serverSelect = {
  id: true,
  name: true,
  url: true,
  auth: true,
  active: true,
  tokenCiphertext: true,
  oauthClientId: true,
  oauthClientSecretCiphertext: true,
  lastSyncedAt: true,
  lastSyncError: true,
  createdAt: true,
  updatedAt: true,
  tools: { where: { removedAt: null }, select: { fingerprint: true, reviewedFingerprint: true } },
} as const;

export interface McpServerRow {
  id: number;
  name: string;
  url: string;
  auth: string;
  active: boolean;
  tokenCiphertext: string | null;
  oauthClientId: string | null;
  oauthClientSecretCiphertext: string | null;
  lastSyncedAt: Date | null;
  lastSyncError: string | null;
  createdAt: Date;
  updatedAt: Date;
  tools: { fingerprint: string; reviewedFingerprint: string | null }[];
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return null;
  }
}

export function serializeServer(server: McpServerRow): McpServerObject {
  const lastError = server.lastSyncError ? SyncErrorObject.safeParse(parseJson(server.lastSyncError)) : null;
  return {
    id: server.id,
    name: server.name,
    url: server.url,
    auth: McpAuthMode.catch("none").parse(server.auth),
    active: server.active,
    has_token: server.tokenCiphertext !== null,
    oauth_client_id: server.oauthClientId,
    has_oauth_client_secret: server.oauthClientSecretCiphertext !== null,
    tool_count: server.tools.length,
    tools_needing_review: server.tools.filter((t) => t.reviewedFingerprint !== t.fingerprint).length,
    last_synced_at: isoOffsetOrNull(server.lastSyncedAt),
    last_sync_error: lastError?.success ? lastError.data : null,
    created_at: isoOffset(server.createdAt),
    updated_at: isoOffset(server.updatedAt),
  };
}

/** Path ids are small integers; anything else names no server. */
export function parseServerId(raw: string): number {
  if (!/^[1-9][0-9]{0,8}$/.test(raw)) throw notFound("MCP server");
  return Number(raw);
}

export async function findServer(organizationId: string, id: number, tx: DbOrTx = db): Promise<McpServerRow> {
  const server = await tx.mcpServer.findFirst({ where: { id, organizationId }, select: serverSelect });
  if (!server) throw notFound("MCP server");
  return server;
}

export function listServers(organizationId: string, tx: DbOrTx = db): Promise<McpServerRow[]> {
  return tx.mcpServer.findMany({ where: { organizationId }, select: serverSelect, orderBy: { id: "asc" } });
}

const tokenError = (message: string) =>
  new ApiError("invalid_parameter", message, { errors: [{ field: "token", code: "invalid_value", message }] });

const oauthClientError = (field: string, message: string) =>
  new ApiError("invalid_parameter", message, { errors: [{ field, code: "invalid_value", message }] });

/** Only `oauth` servers take an admin's client registration, and a secret only with a client id. */
function checkOAuthClient(auth: McpAuthMode, clientId: string | null, hasSecret: boolean) {
  if (auth !== "oauth" && (clientId !== null || hasSecret))
    throw oauthClientError(
      clientId !== null ? "oauth_client_id" : "oauth_client_secret",
      `A client registration is only accepted when auth is oauth (auth is ${auth}).`,
    );
  if (clientId === null && hasSecret)
    throw oauthClientError("oauth_client_secret", "A client secret needs its oauth_client_id.");
}

/** Only `org_token` servers hold an organization token; the others must not be given one. */
function checkToken(auth: McpAuthMode, hasToken: boolean) {
  if (auth === "org_token" && !hasToken) throw tokenError("A token is required when auth is org_token.");
  if (auth !== "org_token" && hasToken)
    throw tokenError(`A token is only accepted when auth is org_token (auth is ${auth}).`);
}

export async function createServer(
  organizationId: string,
  input: McpServerCreateBody,
  actor: AuditActor,
  tx: DbOrTx = db,
): Promise<McpServerRow> {
  checkToken(input.auth, input.token !== undefined);
  checkOAuthClient(input.auth, input.oauth_client_id ?? null, input.oauth_client_secret !== undefined);
  await assertAdminUrl(organizationId, input.url, "url", tx);
  return inTransaction(tx, async (tx) => {
    const created = await tx.mcpServer.create({
      data: {
        organizationId,
        name: input.name,
        url: input.url,
        auth: input.auth,
        active: input.active,
        tokenCiphertext: input.token !== undefined ? encryptSecret(input.token, new URL(input.url).origin) : null,
        oauthClientId: input.oauth_client_id ?? null,
      },
      select: { id: true },
    });
    // The client secret is sealed for the server's id as well as its origin: known only once the row exists.
    const server = await tx.mcpServer.update({
      where: { id: created.id },
      data: {
        oauthClientSecretCiphertext:
          input.oauth_client_secret !== undefined
            ? sealBoundSecret(input.oauth_client_secret, new URL(input.url).origin, { serverId: created.id })
            : null,
      },
      select: serverSelect,
    });
    await recordAudit(
      {
        organizationId,
        actor,
        action: "connector.created",
        target: connectorTarget(server.id),
        details: { name: server.name, auth: server.auth, has_token: server.tokenCiphertext !== null },
      },
      tx,
    );
    return server;
  });
}

export const connectorTarget = (id: number) => ({ type: "connector", id: String(id) });

export async function updateServer(
  organizationId: string,
  id: number,
  input: McpServerUpdateBody,
  actor: AuditActor,
  tx: DbOrTx = db,
): Promise<McpServerRow> {
  const existing = await findServer(organizationId, id, tx);
  const auth = input.auth ?? McpAuthMode.parse(existing.auth);
  const origin = new URL(input.url ?? existing.url).origin;
  // A token was given for one origin: moving the server to another drops it, unless
  // the caller sends the new origin's token in the same request (the server may stay
  // without one: its syncs then fail as unauthorized until it gets one).
  const movesOrigin = origin !== new URL(existing.url).origin;
  // Leaving org_token drops the stored token unless the caller sends one (then checkToken refuses it).
  const storedKept = input.token === undefined && auth === "org_token" && existing.tokenCiphertext !== null;
  const keepsToken = storedKept && !movesOrigin;
  const dropsTokenByMove = storedKept && movesOrigin;
  // A server already without its token (a move dropped it) may still be renamed,
  // paused or moved: the token is required only when auth becomes org_token.
  const staysWithoutToken =
    auth === "org_token" &&
    existing.auth === "org_token" &&
    existing.tokenCiphertext === null &&
    input.token === undefined;
  if (!dropsTokenByMove && !staysWithoutToken)
    checkToken(auth, keepsToken || (input.token !== undefined && input.token !== null));
  if (input.url !== undefined && input.url !== existing.url) await assertAdminUrl(organizationId, input.url, "url", tx);
  const tokenCiphertext = keepsToken
    ? existing.tokenCiphertext
    : input.token
      ? encryptSecret(input.token, origin)
      : null;
  const { oauthClientId, oauthClientSecretCiphertext } = nextOAuthClient(existing, input, auth, origin, movesOrigin);
  // Members' tokens were given for this origin and this way of signing in: a move or leaving it drops them.
  const wasPerMember = existing.auth === "per_user_token" || existing.auth === "oauth";
  const dropsMemberCredentials =
    wasPerMember && (movesOrigin || auth !== existing.auth || oauthClientId !== existing.oauthClientId);
  return inTransaction(tx, async (tx) => {
    const updated = await tx.mcpServer.update({
      where: { id: existing.id },
      data: {
        name: input.name,
        url: input.url,
        auth,
        active: input.active,
        tokenCiphertext,
        oauthClientId,
        oauthClientSecretCiphertext,
      },
      select: serverSelect,
    });
    if (dropsMemberCredentials || movesOrigin) {
      await dropServerCredentials(organizationId, existing.id, actor, movesOrigin ? "moved" : "auth_changed", tx);
      forgetDiscovery(existing.url);
    }
    const fields = (["name", "url", "auth", "active"] as const).filter((field) => existing[field] !== updated[field]);
    // Moved, paused, another auth or token: this instance's open upstream sessions go (others never reuse
    // them: the dispatcher reads the connector on every call, and a new credential opens a new session).
    if (
      fields.some((field) => field !== "name") ||
      tokenCiphertext !== existing.tokenCiphertext ||
      dropsMemberCredentials
    )
      dropMcpSessions(organizationId, existing.id);
    const target = connectorTarget(existing.id);
    if (fields.length)
      await recordAudit({ organizationId, actor, action: "connector.updated", target, details: { fields } }, tx);
    // Which way the token went, never the token: a new one, or dropped (a move or leaving org_token).
    if (tokenCiphertext !== existing.tokenCiphertext)
      await recordAudit(
        {
          organizationId,
          actor,
          action: "connector.token_changed",
          target,
          details: { change: tokenCiphertext === null ? "removed" : existing.tokenCiphertext ? "replaced" : "added" },
        },
        tx,
      );
    return updated;
  });
}

/**
 * The admin's client registration after an update: kept, replaced or removed as
 * asked; its secret dropped when the server moves (unless sent again) and the
 * whole registration when auth leaves oauth.
 */
function nextOAuthClient(
  existing: McpServerRow,
  input: McpServerUpdateBody,
  auth: McpAuthMode,
  origin: string,
  movesOrigin: boolean,
): { oauthClientId: string | null; oauthClientSecretCiphertext: string | null } {
  const leavesOAuth = auth !== "oauth" && existing.auth === "oauth";
  const clientId =
    input.oauth_client_id !== undefined ? input.oauth_client_id : leavesOAuth ? null : existing.oauthClientId;
  const clientChanged = clientId !== existing.oauthClientId;
  const binding = { serverId: existing.id };
  let secret: string | null;
  if (input.oauth_client_secret !== undefined) secret = input.oauth_client_secret;
  // Like the token: a secret entered for one origin is not carried to another unless sent again.
  else if (clientChanged || movesOrigin || !existing.oauthClientSecretCiphertext) secret = null;
  else {
    try {
      secret = openBoundSecret(existing.oauthClientSecretCiphertext, new URL(existing.url).origin, binding);
    } catch {
      secret = null;
    }
  }
  checkOAuthClient(auth, clientId, input.oauth_client_secret !== undefined && input.oauth_client_secret !== null);
  if (secret !== null && clientId === null) secret = null;
  const unchanged = !movesOrigin && !clientChanged && input.oauth_client_secret === undefined && secret !== null;
  return {
    oauthClientId: clientId,
    oauthClientSecretCiphertext: unchanged
      ? existing.oauthClientSecretCiphertext
      : secret !== null
        ? sealBoundSecret(secret, origin, binding)
        : null,
  };
}

export async function deleteServer(organizationId: string, id: number, actor: AuditActor, tx: DbOrTx): Promise<void> {
  const server = await findServer(organizationId, id, tx);
  await recordAudit(
    { organizationId, actor, action: "connector.deleted", target: connectorTarget(id), details: { name: server.name } },
    tx,
  );
  // Explicit rather than relying on the database's cascade, which SQLite applies only with foreign keys on.
  await tx.mcpTool.deleteMany({ where: { serverId: id, organizationId } });
  await tx.mcpConnection.deleteMany({ where: { serverId: id, organizationId } });
  await tx.mcpAuthorization.deleteMany({ where: { serverId: id, organizationId } });
  await tx.mcpOAuthRegistration.deleteMany({ where: { serverId: id, organizationId } });
  await tx.mcpServer.deleteMany({ where: { id, organizationId } });
  dropMcpSessions(organizationId, id);
}

/**
 * Where and how to reach a server: the URL and the decrypted organization token,
 * if any. The token decrypts only for the origin it was given for, so it can never
 * be sent to another host.
 */
export function serverEndpoint(server: Pick<McpServerRow, "url" | "tokenCiphertext">): McpEndpoint {
  if (!server.tokenCiphertext) return { url: server.url, token: null };
  try {
    return { url: server.url, token: decryptSecret(server.tokenCiphertext, new URL(server.url).origin) };
  } catch {
    // The encryption key changed, or the token was given for another origin: the token is lost, not the connector.
    throw new McpFailure(
      "unauthorized",
      "The stored token can no longer be decrypted (the encryption key changed, or it was given for another address): give the connector its token again.",
    );
  }
}
