import "server-only";
import { createHash, randomBytes } from "node:crypto";
import { z } from "zod";
import { recordAudit, type AuditActor } from "@/lib/audit/record";
import { db, inTransaction, type DbOrTx } from "@/lib/db";
import { WatchedCache } from "@/lib/db/changes";
import { notFound } from "@/lib/http/errors";
import { newId } from "@/lib/ids";
import { Scope } from "@/lib/auth/scopes";
import { abortSessionCalls, endSessionsOfKey } from "@/lib/mcp-server/session";
import type { Principal } from "@/lib/auth/principal";

const SECRET_PREFIX = "gch_";
const LAST_USED_GRANULARITY_MS = 60_000;

export function hashSecret(secret: string): string {
  return createHash("sha256").update(secret).digest("hex");
}

function newSecret(): string {
  return SECRET_PREFIX + randomBytes(30).toString("base64url");
}

const apiKeySelect = {
  id: true,
  name: true,
  prefix: true,
  scopes: true,
  lastUsedAt: true,
  revokedAt: true,
  createdAt: true,
} as const;
export type ApiKeyRow = {
  id: string;
  name: string;
  prefix: string;
  scopes: unknown;
  lastUsedAt: Date | null;
  revokedAt: Date | null;
  createdAt: Date;
};

export async function createApiKey(
  input: { organizationId: string; name: string; scopes: Scope[]; createdById?: string | null; actor?: AuditActor },
  tx: DbOrTx = db,
): Promise<{ key: ApiKeyRow; secret: string }> {
  const secret = newSecret();
  const created = (tx: DbOrTx) =>
    tx.apiKey.create({
      data: {
        id: newId("key"),
        organizationId: input.organizationId,
        name: input.name,
        prefix: secret.slice(0, 12),
        secretHash: hashSecret(secret),
        scopes: [...new Set(input.scopes)],
        createdById: input.createdById ?? null,
      },
      select: apiKeySelect,
    });
  const key = await inTransaction(tx, async (tx) => {
    const key = await created(tx);
    await recordAudit(
      {
        organizationId: input.organizationId,
        actor: input.actor ?? { type: "system" },
        action: "api_key.created",
        target: { type: "api_key", id: key.id },
        details: { name: key.name, scopes: [...new Set(input.scopes)] },
      },
      tx,
    );
    return key;
  });
  return { key, secret };
}

export function listApiKeys(organizationId: string, tx: DbOrTx = db): Promise<ApiKeyRow[]> {
  return tx.apiKey.findMany({
    where: { organizationId },
    select: apiKeySelect,
    orderBy: [{ createdAt: "desc" }, { id: "desc" }],
  });
}

export async function revokeApiKey(
  organizationId: string,
  id: string,
  actor: AuditActor,
  tx: DbOrTx = db,
): Promise<ApiKeyRow> {
  let endedSessions: string[] = [];
  return inTransaction(tx, async (tx) => {
    const existing = await tx.apiKey.findFirst({ where: { id, organizationId }, select: apiKeySelect });
    if (!existing) throw notFound("API key");
    if (existing.revokedAt) return existing;
    // Conditional, so two concurrent revocations record one event.
    const moved = await tx.apiKey.updateMany({ where: { id, revokedAt: null }, data: { revokedAt: new Date() } });
    if (moved.count === 1)
      await recordAudit(
        {
          organizationId,
          actor,
          action: "api_key.revoked",
          target: { type: "api_key", id },
          details: { name: existing.name },
        },
        tx,
      );
    // The key's MCP sessions end with it (a /v1 run it opened can no longer be driven by anyone).
    endedSessions = await endSessionsOfKey(tx, organizationId, id);
    return tx.apiKey.findUniqueOrThrow({ where: { id }, select: apiKeySelect });
  })
    .then((revoked) => {
      abortSessionCalls(endedSessions);
      return revoked;
    })
    .finally(() => knownKeys.clear());
}

// Built once: it runs on every authenticated request.
const StoredScopes = z.array(Scope).catch([]);

interface KnownKey {
  id: string;
  organizationId: string;
  scopes: Scope[];
  lastUsedAt: Date | null;
  revoked: boolean;
}

// Keys by secret hash, kept by each instance while no key changes anywhere: any
// insert, delete or update of a key (but of lastUsedAt alone) is seen by the
// next request of every instance (lib/db/changes.ts), so a revoked key is
// refused at once everywhere. Unknown secrets are never kept.
const knownKeys = new WatchedCache<string, KnownKey>(["api_keys"]);

async function loadKey(secretHash: string): Promise<KnownKey | null> {
  // SQL rather than findUnique: Prisma 6 compiles every ORM query anew (README,
  // Benchmarks). Prisma still types the columns: scopes
  // comes back parsed, the dates as Date, on both databases.
  const [key] = await db.$queryRaw<
    { id: string; organizationId: string; scopes: unknown; lastUsedAt: Date | null; revokedAt: Date | null }[]
  >`
    SELECT "id", "organizationId", "scopes", "lastUsedAt", "revokedAt" FROM "ApiKey" WHERE "secretHash" = ${secretHash}`;
  if (!key) return null;
  return {
    id: key.id,
    organizationId: key.organizationId,
    scopes: StoredScopes.parse(key.scopes),
    lastUsedAt: key.lastUsedAt,
    revoked: key.revokedAt !== null,
  };
}

/** Resolves a bearer secret to a principal; null for unknown or revoked keys. */
export async function authenticateApiKey(secret: string): Promise<Principal | null> {
  if (!secret.startsWith(SECRET_PREFIX) || secret.length > 200) return null;
  const secretHash = hashSecret(secret);
  const key = await knownKeys.get(secretHash, () => loadKey(secretHash));
  if (!key || key.revoked) return null;
  const now = new Date();
  if (!key.lastUsedAt || now.getTime() - key.lastUsedAt.getTime() >= LAST_USED_GRANULARITY_MS) {
    // At most one write a minute per key and instance (concurrent requests see the date
    // set here); the condition keeps instances from all writing. No instance drops its
    // keys for it: lastUsedAt is outside what the triggers watch.
    key.lastUsedAt = now;
    await db.apiKey.updateMany({
      where: {
        id: key.id,
        OR: [{ lastUsedAt: null }, { lastUsedAt: { lt: new Date(now.getTime() - LAST_USED_GRANULARITY_MS) } }],
      },
      data: { lastUsedAt: now },
    });
  }
  return { kind: "apiKey", organizationId: key.organizationId, apiKeyId: key.id, scopes: [...key.scopes] };
}
