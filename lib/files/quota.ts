import type { DbOrTx, Tx } from "@/lib/db";
import { ApiError } from "@/lib/http/errors";

/**
 * Serializes quota decisions of one organization: the first statement of the
 * transaction takes the organization row's write lock (PostgreSQL row lock; on
 * SQLite the database write lock), so two uploads cannot both see room for one.
 */
export async function lockOrganization(tx: Tx, organizationId: string): Promise<void> {
  await tx.$executeRaw`UPDATE "Organization" SET "name" = "name" WHERE "id" = ${organizationId}`;
}

/** Files that still count and can be read: documents, and plain files not yet expired. */
export function liveFiles(organizationId: string, now = new Date()) {
  return { organizationId, OR: [{ expiresAt: null }, { expiresAt: { gt: now } }] };
}

export interface FileQuota {
  maxFiles: number;
  storageBytes: number;
}

/** Refuses a new file of `bytes` that would pass the plan's file count or storage quota. */
export async function assertFileQuota(
  tx: DbOrTx,
  organizationId: string,
  quota: FileQuota,
  bytes: number,
): Promise<void> {
  const usage = await tx.file.aggregate({
    where: liveFiles(organizationId),
    _count: { _all: true },
    _sum: { bytes: true },
  });
  const files = usage._count._all;
  const used = usage._sum.bytes ?? 0;
  if (files + 1 > quota.maxFiles) {
    throw new ApiError(
      "storage_quota_exceeded",
      `Your plan allows ${quota.maxFiles} files; delete some before uploading.`,
      {
        reason: { quota: "files", limit: quota.maxFiles, used: files },
      },
    );
  }
  if (used + bytes > quota.storageBytes) {
    throw new ApiError(
      "storage_quota_exceeded",
      `This file (${bytes} bytes) would pass your plan's storage of ${quota.storageBytes} bytes (${used} used).`,
      {
        reason: { quota: "storage_bytes", limit: quota.storageBytes, used },
      },
    );
  }
}
