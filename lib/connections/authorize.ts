import "server-only";
import { createHash, randomBytes } from "node:crypto";
import { db } from "@/lib/db";
import { ApiError } from "@/lib/http/errors";
import { newId } from "@/lib/ids";
import { dropMcpSessions } from "@/lib/mcp/session-pool";
import { openBoundSecret, sealBoundSecret } from "@/lib/mcp/secrets";
import {
  accountLabel,
  asApiError,
  beginAuthorization,
  callbackUrl,
  clientRegistration,
  discoverUpstream,
  exchangeCode,
  issuerMismatch,
  upstreamFetch,
} from "./oauth";
import { findPerMemberServer, noteEvent, requireAuth, serverForMemberSelect } from "./service";

// A member's OAuth sign-in at a connector: started here (PKCE S256, state,
// resource indicator; the verifier sealed in a pending row that lives ten
// minutes), finished at the callback (state used once, the member's own
// session, the issuer checked, then the code exchanged and the tokens sealed).

const PENDING_TTL_MS = 10 * 60_000;

export function stateHash(state: string): string {
  return createHash("sha256").update(state).digest("hex");
}

// POST /v1/me/connections/{server}/authorize
export async function authorizeMember(
  member: { organizationId: string; memberId: string },
  serverId: number,
  options: { origin: string; returnTo?: string },
): Promise<{ authorizationUrl: string }> {
  const server = await findPerMemberServer(member.organizationId, serverId);
  requireAuth(server, "oauth");
  if (!server.active) throw new ApiError("connection_unavailable", "This connector is inactive.");
  const origin = new URL(server.url).origin;
  const redirectUri = callbackUrl(options.origin);
  const fetchFn = await upstreamFetch(member.organizationId);
  try {
    const auth = await discoverUpstream(server.url, fetchFn);
    const registration = await clientRegistration(server, auth, options.origin, fetchFn);
    const state = randomBytes(32).toString("base64url");
    const { authorizationUrl, codeVerifier } = await beginAuthorization(auth, registration, redirectUri, state);
    await db.mcpAuthorization.create({
      data: {
        stateHash: stateHash(state),
        organizationId: member.organizationId,
        serverId: server.id,
        memberId: member.memberId,
        origin,
        issuer: auth.issuer,
        codeVerifierCiphertext: sealBoundSecret(codeVerifier, origin, {
          serverId: server.id,
          memberId: member.memberId,
        }),
        redirectUri,
        resource: auth.resource,
        returnTo: options.returnTo ?? null,
        expiresAt: new Date(Date.now() + PENDING_TTL_MS),
      },
    });
    return { authorizationUrl: authorizationUrl.toString() };
  } catch (error) {
    throw asApiError(error);
  }
}

/** Why a callback was refused: a typed code for the page, nothing stored. */
export class CallbackRefusal extends Error {
  constructor(
    readonly code:
      | "connection_state_invalid"
      | "connection_not_yours"
      | "connection_issuer_mismatch"
      | "connection_code_missing"
      | "connection_denied"
      | "connection_exchange_failed",
    message: string,
    readonly status = 400,
  ) {
    super(message);
    this.name = "CallbackRefusal";
  }
}

/**
 * The upstream's answer at /oauth/connectors/callback. The state is used once
 * (its row is claimed by deleting it), belongs to the signed-in member, and the
 * issuer must be the one the authorization was started with; only then is the
 * code exchanged and the connection stored. Answers where to send the member.
 */
export async function completeAuthorization(
  params: URLSearchParams,
  session: { memberId: string; organizationId: string; email: string } | null,
): Promise<{ returnTo: string }> {
  const state = params.get("state");
  if (!state || state.length > 200)
    throw new CallbackRefusal("connection_state_invalid", "The answer carries no valid state.");
  const hash = stateHash(state);
  const pending = await db.mcpAuthorization.findUnique({ where: { stateHash: hash } });
  // Claimed once: of two answers with one state, one deletes the row and the other finds nothing.
  const claimed = pending ? await db.mcpAuthorization.deleteMany({ where: { stateHash: hash } }) : { count: 0 };
  if (!pending || claimed.count !== 1 || pending.expiresAt.getTime() <= Date.now())
    throw new CallbackRefusal(
      "connection_state_invalid",
      "This sign-in is unknown, already used or expired: start again.",
    );
  if (!session || session.memberId !== pending.memberId || session.organizationId !== pending.organizationId)
    throw new CallbackRefusal("connection_not_yours", "This sign-in was started by another person or session.", 403);
  const server = await db.mcpServer.findFirst({
    where: { id: pending.serverId, organizationId: pending.organizationId },
    select: serverForMemberSelect,
  });
  if (!server || server.auth !== "oauth" || new URL(server.url).origin !== pending.origin)
    throw new CallbackRefusal(
      "connection_state_invalid",
      "The connector changed since this sign-in began: start again.",
    );
  const fetchFn = await upstreamFetch(pending.organizationId);
  let auth;
  try {
    auth = await discoverUpstream(server.url, fetchFn);
  } catch {
    throw new CallbackRefusal(
      "connection_exchange_failed",
      "The connector's authorization server cannot be reached.",
      502,
    );
  }
  const upstreamError = params.get("error");
  // A refusal stores nothing whatever its iss says, but a wrong iss is named as such; a code needs the right one.
  if (issuerMismatch(auth, pending.issuer, params))
    throw new CallbackRefusal(
      "connection_issuer_mismatch",
      "The answer does not come from the connector's authorization server.",
    );
  if (upstreamError)
    throw new CallbackRefusal("connection_denied", "The sign-in was refused or cancelled at the connector.");
  const code = params.get("code");
  if (!code || code.length > 2048)
    throw new CallbackRefusal("connection_code_missing", "The answer carries no authorization code.");
  const binding = { serverId: server.id, memberId: pending.memberId };
  let tokens;
  try {
    const registration = await clientRegistration(server, auth, new URL(pending.redirectUri).origin, fetchFn);
    tokens = await exchangeCode(
      auth,
      registration,
      {
        code,
        codeVerifier: openBoundSecret(pending.codeVerifierCiphertext, pending.origin, binding),
        redirectUri: pending.redirectUri,
      },
      fetchFn,
    );
  } catch {
    throw new CallbackRefusal(
      "connection_exchange_failed",
      "The connector's authorization server refused the code.",
      502,
    );
  }
  const data = {
    origin: pending.origin,
    accessTokenCiphertext: sealBoundSecret(tokens.access_token, pending.origin, binding),
    refreshTokenCiphertext: tokens.refresh_token
      ? sealBoundSecret(tokens.refresh_token, pending.origin, binding)
      : null,
    expiresAt: typeof tokens.expires_in === "number" ? new Date(Date.now() + tokens.expires_in * 1000) : null,
    scope: tokens.scope ?? null,
    account: accountLabel(tokens),
    state: "connected",
    lastError: null,
    refreshLeaseUntil: null,
  };
  await db.$transaction(async (tx) => {
    await tx.mcpConnection.upsert({
      where: { serverId_memberId: { serverId: server.id, memberId: pending.memberId } },
      create: {
        id: newId("mcn"),
        organizationId: pending.organizationId,
        serverId: server.id,
        memberId: pending.memberId,
        ...data,
      },
      update: data,
    });
    await noteEvent(
      {
        organizationId: pending.organizationId,
        serverId: server.id,
        memberId: pending.memberId,
        actor: { type: "member", id: session.memberId, label: session.email },
        action: "mcp_connection.connected",
        details: { auth: "oauth" },
      },
      tx,
    );
  });
  dropMcpSessions(pending.organizationId, server.id, pending.memberId);
  return { returnTo: pending.returnTo ?? "/preferences#connexions" };
}
