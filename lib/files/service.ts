import "server-only";
import { createReadStream } from "node:fs";
import { rm, stat } from "node:fs/promises";
import { Readable } from "node:stream";
import { agentLimits } from "@/lib/agents/api";
import { db, type DbOrTx } from "@/lib/db";
import { ApiError, notFound } from "@/lib/http/errors";
import { newId } from "@/lib/ids";
import { afterCursor, page, type ListQuery } from "@/lib/http/validation";
import { serializeFile, type FileRow } from "./api";
import { detectFileType } from "./detect";
import { assertFileQuota, liveFiles, lockOrganization } from "./quota";
import { commitTempFile, removeStoredBytes, storageKeyFor, storagePath } from "./storage";
import { receiveUpload } from "./upload";

const DAY_MS = 24 * 60 * 60 * 1000;
const fileSelect = {
  id: true,
  filename: true,
  bytes: true,
  mimeType: true,
  sha256: true,
  agentId: true,
  expiresAt: true,
  createdAt: true,
  storageKey: true,
} as const;
type StoredFile = FileRow & { storageKey: string };

async function planLimits(organizationId: string, tx: DbOrTx = db) {
  const organization = await tx.organization.findUniqueOrThrow({
    where: { id: organizationId },
    select: { plan: { select: { maxFileBytes: true, maxFiles: true, storageBytes: true, fileTtlDays: true } } },
  });
  return organization.plan;
}

const tooManyDocuments = () =>
  new ApiError("too_many_documents", `An agent carries at most ${agentLimits.documents} documents; delete one first.`, {
    reason: { limit: agentLimits.documents },
  });

async function assertDocumentRoom(tx: DbOrTx, organizationId: string, agentId: string): Promise<void> {
  const agent = await tx.agent.findFirst({
    where: { id: agentId, organizationId },
    select: { _count: { select: { documents: true } } },
  });
  if (!agent) throw notFound("Agent");
  if (agent._count.documents >= agentLimits.documents) throw tooManyDocuments();
}

/** Deletes the organization's expired plain files, rows and bytes; called before each upload. */
export async function purgeExpiredFiles(organizationId: string): Promise<void> {
  const expired = await db.file.findMany({
    where: { organizationId, expiresAt: { lte: new Date() } },
    select: { id: true, storageKey: true },
    take: 200,
  });
  if (expired.length === 0) return;
  await db.file.deleteMany({ where: { id: { in: expired.map((f) => f.id) } } });
  await removeStoredBytes(expired.map((f) => f.storageKey));
}

/**
 * Receives one upload: a plain file (expires after the plan's TTL) or, with
 * `agentId`, a knowledge document of that agent (no expiry, 20 per agent). The
 * bytes stream to a temp file; the row is created and the file moved into place
 * under the organization's lock, after the quotas are checked with the real size.
 */
export async function uploadFile(
  organizationId: string,
  request: Request,
  options: { agentId?: string } = {},
): Promise<FileRow> {
  const plan = await planLimits(organizationId);
  const { agentId } = options;
  // Cheap refusals before reading a byte of the body.
  if (agentId) await assertDocumentRoom(db, organizationId, agentId);
  await purgeExpiredFiles(organizationId);
  await assertFileQuota(db, organizationId, plan, 1);

  const upload = await receiveUpload(request, plan.maxFileBytes);
  const fileId = newId("file");
  const key = storageKeyFor(organizationId, fileId);
  let moved = false;
  try {
    const mimeType = await detectFileType(upload);
    return await db.$transaction(async (tx) => {
      await lockOrganization(tx, organizationId);
      if (agentId) await assertDocumentRoom(tx, organizationId, agentId);
      await assertFileQuota(tx, organizationId, plan, upload.bytes);
      const row = await tx.file.create({
        data: {
          id: fileId,
          organizationId,
          agentId: agentId ?? null,
          filename: upload.filename,
          bytes: upload.bytes,
          mimeType,
          sha256: upload.sha256,
          storageKey: key,
          expiresAt: agentId ? null : new Date(Date.now() + plan.fileTtlDays * DAY_MS),
        },
        select: fileSelect,
      });
      await commitTempFile(upload.tempPath, key);
      moved = true;
      return row;
    });
  } catch (error) {
    await rm(upload.tempPath, { force: true });
    if (moved) await removeStoredBytes([key]);
    throw error;
  }
}

export async function listFiles(organizationId: string, query: ListQuery, options: { agentId?: string } = {}) {
  const where = options.agentId ? { organizationId, agentId: options.agentId } : liveFiles(organizationId);
  const rows = await db.file.findMany({
    where: { AND: [where, afterCursor(query.cursor)] },
    select: fileSelect,
    orderBy: [{ createdAt: "desc" }, { id: "desc" }],
    take: query.limit + 1,
  });
  return page(rows, query.limit, serializeFile);
}

/** A readable file of the organization; expired files are gone. */
export async function findFile(organizationId: string, fileId: string, tx: DbOrTx = db): Promise<StoredFile> {
  const file = await tx.file.findFirst({
    where: { AND: [{ id: fileId }, liveFiles(organizationId)] },
    select: fileSelect,
  });
  if (!file) throw notFound("File");
  return file;
}

function contentDisposition(filename: string): string {
  const fallback = filename.replace(/[^\x20-\x7e]/g, "_").replace(/["\\]/g, "_");
  return `attachment; filename="${fallback}"; filename*=UTF-8''${encodeURIComponent(filename)}`;
}

/** The file's bytes as a streamed download. */
export async function fileContentResponse(organizationId: string, fileId: string): Promise<Response> {
  const file = await findFile(organizationId, fileId);
  const location = storagePath(file.storageKey);
  await stat(location);
  const body = Readable.toWeb(createReadStream(location)) as ReadableStream<Uint8Array>;
  return new Response(body, {
    status: 200,
    headers: {
      "content-type":
        file.mimeType.startsWith("text/") || file.mimeType === "application/json"
          ? `${file.mimeType}; charset=utf-8`
          : file.mimeType,
      "content-length": String(file.bytes),
      "content-disposition": contentDisposition(file.filename),
      "x-content-type-options": "nosniff",
      etag: `"${file.sha256}"`,
      "cache-control": "private, no-store",
    },
  });
}

/** DELETE /v1/files/{file}: plain files only; a document belongs to its agent. */
export async function deleteFile(organizationId: string, fileId: string): Promise<void> {
  const file = await findFile(organizationId, fileId);
  if (file.agentId) {
    throw new ApiError(
      "file_in_use",
      "This file is a knowledge document of an agent; delete it through DELETE /v1/agents/{agent}/documents/{file}.",
      {
        reason: { agent: file.agentId },
      },
    );
  }
  await db.file.delete({ where: { id: file.id } });
  await removeStoredBytes([file.storageKey]);
}

/** DELETE /v1/agents/{agent}/documents/{file}. */
export async function deleteDocument(organizationId: string, agentId: string, fileId: string): Promise<void> {
  const file = await db.file.findFirst({ where: { id: fileId, organizationId, agentId }, select: fileSelect });
  if (!file) throw notFound("Document");
  await db.file.delete({ where: { id: file.id } });
  await removeStoredBytes([file.storageKey]);
}
