import "server-only";
import { db } from "@/lib/db";
import { log } from "@/lib/log";
import { openBoundSecret, sealBoundSecret } from "@/lib/mcp/secrets";
import { noteMemberConnection } from "@/lib/observability/metrics";
import { recordAudit, SYSTEM_ACTOR } from "@/lib/audit/record";
import { clientRegistration, discoverUpstream, isInvalidGrant, refreshTokens, upstreamFetch } from "./oauth";
import { connectUrl } from "./service";

// The token a call sends when a run acts for a member: that member's own, for
// that server, never another's. An OAuth access token with 60 s or less left is
// refreshed first (with rotation), once however many calls of the member need it
// at the same time: in this process one refresh is shared, across instances a
// lease on the row lets one instance refresh while the others wait for its result.
// An upstream `invalid_grant` drops the tokens and marks the connection
// `needs_reconnect`: the call is refused before anything is sent.

const REFRESH_MARGIN_MS = 60_000;
const LEASE_MS = 20_000;
const WAIT_STEP_MS = 100;

/** The member has no usable connection: the caller answers TOOL_UNAVAILABLE with where to connect. */
export class MemberNotConnected extends Error {
  readonly connectUrl: string;
  constructor(
    readonly serverId: number,
    readonly needsReconnect: boolean,
  ) {
    super(
      needsReconnect
        ? "Your connection to this connector must be renewed: reconnect it."
        : "This connector acts as each member: connect your own account first.",
    );
    this.name = "MemberNotConnected";
    this.connectUrl = connectUrl(serverId);
  }
}

/** The refresh failed for now (the authorization server is unreachable): nothing was sent, try again later. */
export class RefreshUnavailable extends Error {
  constructor() {
    super("The connector's authorization server could not renew the access token; nothing was sent.");
    this.name = "RefreshUnavailable";
  }
}

const connectionSelect = {
  id: true,
  origin: true,
  state: true,
  accessTokenCiphertext: true,
  refreshTokenCiphertext: true,
  expiresAt: true,
  refreshLeaseUntil: true,
  lastUsedAt: true,
} as const;

interface Server {
  id: number;
  organizationId: string;
  url: string;
  auth: string;
  oauthClientId: string | null;
  oauthClientSecretCiphertext: string | null;
}

/** Whether a member has a usable connection to a server (a run's capability set asks this). */
export async function memberConnected(organizationId: string, serverId: number, memberId: string): Promise<boolean> {
  const row = await db.mcpConnection.findFirst({
    where: { organizationId, serverId, memberId, state: "connected" },
    select: { origin: true, accessTokenCiphertext: true, server: { select: { url: true } } },
  });
  return Boolean(row?.accessTokenCiphertext && row.origin === new URL(row.server.url).origin);
}

/** The servers among `serverIds` a member has a usable connection to. */
export async function connectedServers(
  organizationId: string,
  memberId: string,
  serverIds: number[],
): Promise<Set<number>> {
  if (serverIds.length === 0) return new Set();
  const rows = await db.mcpConnection.findMany({
    where: {
      organizationId,
      memberId,
      serverId: { in: serverIds },
      state: "connected",
      accessTokenCiphertext: { not: null },
    },
    select: { serverId: true, origin: true, server: { select: { url: true } } },
  });
  return new Set(rows.filter((row) => row.origin === new URL(row.server.url).origin).map((row) => row.serverId));
}

const refreshing = new Map<string, Promise<string>>();

/**
 * The member's access token for this server, refreshed first when it is about to
 * expire. `refused`: a token the server just refused (HTTP 401): renewed now if it
 * is still the stored one (else the newer stored one is answered).
 */
export async function memberAccessToken(
  server: Server,
  memberId: string,
  options: { refused?: string } = {},
): Promise<string> {
  const origin = new URL(server.url).origin;
  const binding = { serverId: server.id, memberId };
  for (let waited = 0; ;) {
    const row = await db.mcpConnection.findFirst({
      where: { organizationId: server.organizationId, serverId: server.id, memberId },
      select: connectionSelect,
    });
    if (!row || row.origin !== origin || !row.accessTokenCiphertext)
      throw new MemberNotConnected(server.id, Boolean(row));
    if (row.state !== "connected") throw new MemberNotConnected(server.id, true);
    let current: string;
    try {
      current = openBoundSecret(row.accessTokenCiphertext, origin, binding);
    } catch {
      throw new MemberNotConnected(server.id, true);
    }
    const refused = options.refused !== undefined && options.refused === current;
    if (refused && row.refreshTokenCiphertext === null) {
      await dropTokens(server, memberId, row.id, null, "token_refused");
      throw new MemberNotConnected(server.id, true);
    }
    const due =
      refused ||
      (server.auth === "oauth" &&
        row.refreshTokenCiphertext !== null &&
        row.expiresAt !== null &&
        row.expiresAt.getTime() - Date.now() <= REFRESH_MARGIN_MS);
    if (!due) {
      touch(row.id, row.lastUsedAt);
      return current;
    }
    const shared = refreshing.get(row.id);
    if (shared) return shared;
    // Across instances: whoever sets the lease refreshes; the others wait for the row to change.
    const now = new Date();
    const { count } = await db.mcpConnection.updateMany({
      where: {
        id: row.id,
        refreshTokenCiphertext: row.refreshTokenCiphertext,
        OR: [{ refreshLeaseUntil: null }, { refreshLeaseUntil: { lt: now } }],
      },
      data: { refreshLeaseUntil: new Date(now.getTime() + LEASE_MS) },
    });
    if (count === 1) {
      const refresh = refreshOnce(server, memberId, row.id, row.refreshTokenCiphertext!).finally(() =>
        refreshing.delete(row.id),
      );
      refreshing.set(row.id, refresh);
      return refresh;
    }
    if (waited > LEASE_MS) throw new RefreshUnavailable();
    await new Promise((resolve) => setTimeout(resolve, WAIT_STEP_MS));
    waited += WAIT_STEP_MS;
  }
}

async function refreshOnce(
  server: Server,
  memberId: string,
  connectionId: string,
  sealedRefresh: string,
): Promise<string> {
  const origin = new URL(server.url).origin;
  const binding = { serverId: server.id, memberId };
  let tokens;
  try {
    const fetchFn = await upstreamFetch(server.organizationId);
    const auth = await discoverUpstream(server.url, fetchFn);
    const registration = await clientRegistration(server, auth, null, fetchFn);
    tokens = await refreshTokens(auth, registration, openBoundSecret(sealedRefresh, origin, binding), fetchFn);
  } catch (error) {
    if (isInvalidGrant(error)) {
      await dropTokens(server, memberId, connectionId, sealedRefresh, "invalid_grant");
      throw new MemberNotConnected(server.id, true);
    }
    await db.mcpConnection.updateMany({
      where: { id: connectionId },
      data: { refreshLeaseUntil: null, lastError: "refresh_unavailable" },
    });
    throw new RefreshUnavailable();
  }
  await db.mcpConnection.updateMany({
    where: { id: connectionId, refreshTokenCiphertext: sealedRefresh },
    data: {
      accessTokenCiphertext: sealBoundSecret(tokens.access_token, origin, binding),
      // Rotation: the new refresh token when the server sent one (the SDK keeps the old one otherwise).
      refreshTokenCiphertext: tokens.refresh_token
        ? sealBoundSecret(tokens.refresh_token, origin, binding)
        : sealedRefresh,
      expiresAt: typeof tokens.expires_in === "number" ? new Date(Date.now() + tokens.expires_in * 1000) : null,
      refreshLeaseUntil: null,
      lastError: null,
      lastUsedAt: new Date(),
    },
  });
  noteMemberConnection("refreshed");
  return tokens.access_token;
}

/** The upstream refused the member's credential for good: tokens dropped, `needs_reconnect`, audited. */
async function dropTokens(
  server: Server,
  memberId: string,
  connectionId: string,
  sealedRefresh: string | null,
  why: "invalid_grant" | "token_refused",
): Promise<void> {
  await db.$transaction(async (tx) => {
    const { count } = await tx.mcpConnection.updateMany({
      where: { id: connectionId, refreshTokenCiphertext: sealedRefresh },
      data: {
        state: "needs_reconnect",
        accessTokenCiphertext: null,
        refreshTokenCiphertext: null,
        expiresAt: null,
        refreshLeaseUntil: null,
        lastError: why,
      },
    });
    if (count)
      await recordAudit(
        {
          organizationId: server.organizationId,
          actor: SYSTEM_ACTOR,
          action: "mcp_connection.refresh_failed",
          target: { type: "connector", id: String(server.id) },
          details: { member: memberId, error: why },
        },
        tx,
      );
  });
  noteMemberConnection("refresh_failed");
  log("warn", "mcp_connection.refresh_failed", {
    organization: server.organizationId,
    server: server.id,
    member: memberId,
    error: why,
  });
}

/** Records the connection's use, at most once a minute. */
function touch(id: string, lastUsedAt: Date | null): void {
  if (lastUsedAt && Date.now() - lastUsedAt.getTime() < 60_000) return;
  void db.mcpConnection.updateMany({ where: { id }, data: { lastUsedAt: new Date() } }).catch(() => undefined);
}
