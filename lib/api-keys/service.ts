import "server-only";
import { createHash, randomBytes } from "node:crypto";
import { z } from "zod";
import { db, type DbOrTx } from "@/lib/db";
import { notFound } from "@/lib/http/errors";
import { newId } from "@/lib/ids";
import { Scope } from "@/lib/auth/scopes";
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
  input: { organizationId: string; name: string; scopes: Scope[]; createdById?: string | null },
  tx: DbOrTx = db,
): Promise<{ key: ApiKeyRow; secret: string }> {
  const secret = newSecret();
  const key = await tx.apiKey.create({
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
  return { key, secret };
}

export function listApiKeys(organizationId: string, tx: DbOrTx = db): Promise<ApiKeyRow[]> {
  return tx.apiKey.findMany({
    where: { organizationId },
    select: apiKeySelect,
    orderBy: [{ createdAt: "desc" }, { id: "desc" }],
  });
}

export async function revokeApiKey(organizationId: string, id: string, tx: DbOrTx = db): Promise<ApiKeyRow> {
  const existing = await tx.apiKey.findFirst({ where: { id, organizationId }, select: apiKeySelect });
  if (!existing) throw notFound("API key");
  if (existing.revokedAt) return existing;
  return tx.apiKey.update({ where: { id }, data: { revokedAt: new Date() }, select: apiKeySelect });
}

// Built once: it runs on every authenticated request.
const StoredScopes = z.array(Scope).catch([]);

/**
 * Resolves a bearer secret to a principal; null for unknown or revoked keys. Read
 * from the database on every request, never cached: a revocation takes effect at
 * once on every instance.
 */
export async function authenticateApiKey(secret: string): Promise<Principal | null> {
  if (!secret.startsWith(SECRET_PREFIX) || secret.length > 200) return null;
  // SQL rather than findUnique: Prisma 6 compiles every ORM query anew (0.19 → 0.04 ms
  // on SQLite, 0.37 → 0.16 ms on PostgreSQL). Prisma still types the columns: scopes
  // comes back parsed, the dates as Date, on both databases.
  const [key] = await db.$queryRaw<
    { id: string; organizationId: string; scopes: unknown; lastUsedAt: Date | null; revokedAt: Date | null }[]
  >`
    SELECT "id", "organizationId", "scopes", "lastUsedAt", "revokedAt" FROM "ApiKey" WHERE "secretHash" = ${hashSecret(secret)}`;
  if (!key || key.revokedAt) return null;
  const now = new Date();
  if (!key.lastUsedAt || now.getTime() - key.lastUsedAt.getTime() >= LAST_USED_GRANULARITY_MS) {
    // At most one write a minute per key; the condition keeps concurrent requests from all writing.
    await db.apiKey.updateMany({
      where: {
        id: key.id,
        OR: [{ lastUsedAt: null }, { lastUsedAt: { lt: new Date(now.getTime() - LAST_USED_GRANULARITY_MS) } }],
      },
      data: { lastUsedAt: now },
    });
  }
  return {
    kind: "apiKey",
    organizationId: key.organizationId,
    apiKeyId: key.id,
    scopes: StoredScopes.parse(key.scopes),
  };
}
