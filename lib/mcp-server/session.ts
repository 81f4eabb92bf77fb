import "server-only";
import { createHash, randomBytes } from "node:crypto";
import type { Principal } from "@/lib/auth/principal";
import { db, type DbOrTx } from "@/lib/db";
import { findFirstOnDriver } from "@/lib/db/driver";
import { abortRunCalls } from "@/lib/runs/active-calls";
import { drives, type RunDriver } from "@/lib/runs/driver";
import type { RunCreateBody } from "@/lib/runs/api";
import { createRun, effectiveStatus, runSelect, type RunRow } from "@/lib/runs/service";
import type { RunWarning } from "@/lib/runs/capabilities";
import { recordRunStatus } from "@/lib/webhooks/events";

// One MCP session is one Guichet run. The session id is ours (issued on
// `initialize`), stored only as its SHA-256 on the run, and looked up on every
// request: any instance serves any session, and nothing lives in memory.
// A session belongs to the key that opened it: another key of the same
// organization presenting its id finds no session, and revoking the key ends it.

/** A session nobody used for this long ends: its run is marked expired and the client must initialize again. */
export const MCP_SESSION_IDLE_MS = 30 * 60 * 1000;
// Writing "last seen" on every request would cost a write per call; once a minute is enough to judge idleness.
const SEEN_GRANULARITY_MS = 60 * 1000;

/**
 * A session id. A fresh SDK server answers each request, so what the client
 * declared at `initialize` is gone by its next request: the one capability the
 * door acts on, URL-mode elicitation, is carried by the id itself (`mcpsu_`).
 * Only the id's SHA-256 is stored and looked up, so a client cannot add the
 * mark to a session opened without it: the changed id finds no session.
 */
export function newSessionId(urlElicitation = false): string {
  return `${urlElicitation ? "mcpsu_" : "mcps_"}${randomBytes(32).toString("base64url")}`;
}

/** Whether the client of this session declared URL-mode elicitation (MCP 2025-11-25) at initialize. */
export function sessionTakesUrlElicitation(sessionId: string | null): boolean {
  return sessionId?.startsWith("mcpsu_") ?? false;
}

export function sessionHash(sessionId: string): string {
  return createHash("sha256").update(sessionId).digest("hex");
}

export interface ClientInfo {
  name: string;
  version: string;
}

/** `initialize`: a new run of the agent, decided exactly as `POST /v1/runs` decides one (a missing agent is 404). */
export async function openSession(
  principal: Principal,
  agentId: string,
  capabilities: RunCreateBody["capabilities"],
  client: ClientInfo,
  sessionId: string,
  oauth: { grantId: string; clientName: string } | null = null,
): Promise<{ run: RunRow; warnings: RunWarning[] }> {
  const body: RunCreateBody = { agent: agentId, capabilities, debug: false };
  return createRun(principal, body, {
    origin: {
      source: "mcp",
      // Under OAuth the client is the one the member consented to, not the name it gives itself in initialize.
      clientName: (oauth?.clientName ?? client.name).slice(0, 200),
      clientVersion: client.version.slice(0, 100),
      mcpSessionHash: sessionHash(sessionId),
      ...(oauth ? { oauthGrantId: oauth.grantId } : {}),
    },
  });
}

/**
 * The live run behind a session id, for this organization, agent and caller
 * only: an unknown id, another tenant's session, a session another key opened,
 * or a run that ended (cancelled, completed, expired, or idle too long) all
 * read as "no such session".
 */
export async function findSession(
  organizationId: string,
  agentId: string,
  sessionId: string,
  caller: RunDriver,
  now = new Date(),
  oauthGrantId: string | null = null,
): Promise<RunRow | null> {
  const hash = sessionHash(sessionId);
  // Every MCP request looks its session's run up: on the driver once Prisma has connected (lib/db/driver.ts).
  // A session opened under an OAuth grant is that grant's only: the member's other applications do not share it.
  const where = { mcpSessionHash: hash, organizationId, agentId, source: "mcp" };
  const select = { ...runSelect, mcpSeenAt: true, oauthGrantId: true } as const;
  const row = await findFirstOnDriver("Run", select, where, () => db.run.findFirst({ where, select }));
  // Checked before anything is written: another key's request leaves the session as it was.
  if (!row || !drives(row, caller) || (row.oauthGrantId ?? null) !== oauthGrantId) return null;
  const { mcpSeenAt, oauthGrantId: _grant, ...run } = row;
  const status = effectiveStatus(run, now);
  if (status !== "active" && status !== "suspended") return null;
  if (mcpSeenAt && now.getTime() - mcpSeenAt.getTime() > MCP_SESSION_IDLE_MS) {
    await db.run.updateMany({
      where: { id: run.id, status: { in: ["active", "suspended"] } },
      data: { status: "expired" },
    });
    return null;
  }
  if (!mcpSeenAt || now.getTime() - mcpSeenAt.getTime() >= SEEN_GRANULARITY_MS) {
    await db.run.updateMany({ where: { id: run.id }, data: { mcpSeenAt: now } });
  }
  return run;
}

/** `DELETE`: the client ends its session; the run is completed and this instance's calls in flight stop. */
export async function endSession(run: RunRow): Promise<void> {
  await db.$transaction(async (tx) => {
    const ended = await tx.run.updateMany({
      where: { id: run.id, status: { in: ["active", "suspended"] } },
      data: { status: "completed" },
    });
    if (ended.count === 1) await recordRunStatus(tx, run, "run.completed");
  });
  abortRunCalls(run.id);
}

/**
 * A revoked key's sessions end with it: their runs are cancelled (in the
 * revocation's transaction) and answer as unknown sessions from then on.
 * Answers the runs, so the caller can stop their calls in flight once committed.
 */
export async function endSessionsOfKey(tx: DbOrTx, organizationId: string, apiKeyId: string): Promise<string[]> {
  const live = { organizationId, apiKeyId, source: "mcp", status: { in: ["active", "suspended"] } };
  const runs = await tx.run.findMany({ where: live, select: { id: true } });
  if (runs.length === 0) return [];
  await tx.run.updateMany({ where: { ...live, id: { in: runs.map((run) => run.id) } }, data: { status: "cancelled" } });
  return runs.map((run) => run.id);
}

/** Stops this instance's calls in flight of sessions that just ended. */
export function abortSessionCalls(runIds: string[]): void {
  for (const runId of runIds) abortRunCalls(runId);
}
