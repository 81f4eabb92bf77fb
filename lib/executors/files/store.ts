import "server-only";
import { readFile } from "node:fs/promises";
import path from "node:path";
import { db } from "@/lib/db";
import { ToolError } from "@/lib/executors/errors";
import type { ExecutionContext } from "../context";
import { pdfPageCount, pdfText } from "./pdf-text";

// The files a run may read: its own input files and its agent's documents,
// in its organization, not expired. Nothing else is reachable by id.

export interface RunFile {
  id: string;
  filename: string;
  mimeType: string;
  bytes: number;
  sha256: string;
  storageKey: string;
  source: "run" | "agent_document";
}

const fileSelect = {
  id: true,
  filename: true,
  mimeType: true,
  bytes: true,
  sha256: true,
  storageKey: true,
  agentId: true,
} as const;

/** A file past its expiry is gone for every reader. */
function unexpired(now = new Date()) {
  return { OR: [{ expiresAt: null }, { expiresAt: { gt: now } }] };
}

export async function runFiles(ctx: Pick<ExecutionContext, "run">): Promise<RunFile[]> {
  const { organizationId, fileIds, agentId } = ctx.run;
  const rows = await db.file.findMany({
    where: { organizationId, OR: [{ id: { in: fileIds } }, { agentId }], AND: [unexpired()] },
    orderBy: [{ createdAt: "asc" }, { id: "asc" }],
    select: fileSelect,
  });
  return rows.map(({ agentId: owner, ...row }) => ({ ...row, source: owner === agentId ? "agent_document" : "run" }));
}

/**
 * One page of an agent's knowledge documents in upload order (file ids sort by
 * creation time), after the document `afterId` when given, in its organization.
 */
export async function agentDocuments(
  organizationId: string,
  agentId: string,
  page: { afterId: string | null; take: number },
): Promise<RunFile[]> {
  const rows = await db.file.findMany({
    where: { organizationId, agentId, AND: [unexpired(), page.afterId === null ? {} : { id: { gt: page.afterId } }] },
    orderBy: { id: "asc" },
    take: page.take,
    select: fileSelect,
  });
  return rows.map(asDocument);
}

/** One knowledge document of the agent, or null: another agent's or organization's file is not found. */
export async function agentDocument(organizationId: string, agentId: string, fileId: string): Promise<RunFile | null> {
  const row = await db.file.findFirst({
    where: { id: fileId, organizationId, agentId, AND: [unexpired()] },
    select: fileSelect,
  });
  return row ? asDocument(row) : null;
}

function asDocument({ agentId: _owner, ...row }: { agentId: string | null } & Omit<RunFile, "source">): RunFile {
  void _owner;
  return { ...row, source: "agent_document" };
}

export async function runFile(
  ctx: Pick<ExecutionContext, "run">,
  fileId: string,
  field = "/file_id",
): Promise<RunFile> {
  const file = (await runFiles(ctx)).find((f) => f.id === fileId);
  if (!file) throw new ToolError("INVALID_ARGUMENTS", "No file with this id is available to this run.", { field });
  return file;
}

/** What reading a file's bytes needs: where they live, and when to give up. */
export type FileReadContext = Pick<ExecutionContext, "dataDir" | "signal">;

async function fileBytes(ctx: FileReadContext, file: RunFile): Promise<Buffer> {
  const root = path.resolve(ctx.dataDir);
  const location = path.resolve(root, file.storageKey);
  // A storage key is ours, but a path that leaves the data directory is never read.
  if (!location.startsWith(root + path.sep))
    throw new ToolError("TOOL_UNAVAILABLE", "The file's storage location is invalid.");
  try {
    return await readFile(location, { signal: ctx.signal });
  } catch (error) {
    if ((error as { name?: string }).name === "AbortError")
      throw new ToolError("CANCELLED", "The tool call was cancelled.");
    throw new ToolError("TOOL_UNAVAILABLE", "The file's content is missing from storage.");
  }
}

export interface FileText {
  text: string;
  pages: number | null;
}

const textCache = new Map<string, FileText>();
const CACHE_LIMIT = 32;

/** The file's text (UTF-8 for text types, the small PDF reader for PDFs), cached by checksum. */
export async function fileText(ctx: FileReadContext, file: RunFile): Promise<FileText> {
  const cached = textCache.get(file.sha256);
  if (cached) return cached;
  const bytes = await fileBytes(ctx, file);
  const result: FileText =
    file.mimeType === "application/pdf"
      ? { text: pdfText(bytes), pages: pdfPageCount(bytes) }
      : {
          text: new TextDecoder("utf-8")
            .decode(bytes)
            .replace(/^\uFEFF/, "")
            .replace(/\r\n?/g, "\n"),
          pages: null,
        };
  if (textCache.size >= CACHE_LIMIT) textCache.delete(textCache.keys().next().value as string);
  textCache.set(file.sha256, result);
  return result;
}
