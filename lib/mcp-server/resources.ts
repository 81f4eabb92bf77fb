import "server-only";
import { type ListResourcesResult, type ReadResourceResult, type Resource } from "@modelcontextprotocol/sdk/types.js";
import { env } from "@/lib/env";
import { ToolError } from "@/lib/executors/errors";
import { truncateText } from "@/lib/executors/native/upstream";
import { agentDocument, agentDocuments, fileText, type RunFile } from "@/lib/executors/files/store";
import { looksLikeId } from "@/lib/ids";
import { takeCallSlot } from "@/lib/limits/calls";
import type { RunRow } from "@/lib/runs/service";
import { ProtocolError } from "./http";

// resources/list and resources/read of an MCP session: the agent's knowledge
// documents, in its organization, as text (a PDF's text comes from the same
// reader as the file tools). Each request counts against the run's and the
// organization's call limits, as a tool call does. Document text was written by
// someone else: it is marked untrusted, and bounded.

/** Documents per resources/list page (an agent carries 20 at most, so clients see the cursor at work). */
export const RESOURCE_PAGE_SIZE = 10;
/** The most characters one resources/read returns; the file tools page through longer texts. */
export const RESOURCE_MAX_CHARS = 100_000;

const URI_PREFIX = "guichet://documents/";
/** The protocol's "resource not found" (JSON-RPC server error range). */
const RESOURCE_NOT_FOUND = -32002;
/** A Guichet limit refused the request; `data` carries the typed code, as for tool calls. */
const LIMITED = -32000;

export function documentUri(fileId: string): string {
  return URI_PREFIX + fileId;
}

function describe(file: RunFile): Resource {
  return {
    uri: documentUri(file.id),
    name: file.filename,
    title: file.filename,
    mimeType: file.mimeType,
    size: file.bytes,
  };
}

async function countRequest(run: RunRow): Promise<void> {
  const refusal = await takeCallSlot(run.organizationId, run.id);
  if (refusal) {
    throw new ProtocolError(
      LIMITED,
      `Too many calls for this ${refusal.scope}; retry in ${Math.ceil(refusal.retryAfterMs / 1000)} s.`,
      { code: "RATE_LIMITED", retryable: true, retry_after_ms: refusal.retryAfterMs },
    );
  }
}

// The cursor is the last document id of the previous page, opaque to clients.
function encodeCursor(fileId: string): string {
  return Buffer.from(fileId).toString("base64url");
}

function decodeCursor(cursor: string): string {
  const fileId = Buffer.from(cursor, "base64url").toString("utf8");
  if (!looksLikeId("file", fileId))
    throw new ProtocolError(-32602, "Invalid params: this cursor is not a nextCursor of resources/list.");
  return fileId;
}

/** One page of the agent's documents. */
export async function listRunResources(run: RunRow, cursor: string | undefined): Promise<ListResourcesResult> {
  const afterId = cursor === undefined ? null : decodeCursor(cursor);
  await countRequest(run);
  if (run.agentId === null) return { resources: [] };
  const page = await agentDocuments(run.organizationId, run.agentId, { afterId, take: RESOURCE_PAGE_SIZE + 1 });
  const shown = page.slice(0, RESOURCE_PAGE_SIZE);
  return {
    resources: shown.map(describe),
    ...(page.length > RESOURCE_PAGE_SIZE ? { nextCursor: encodeCursor(shown[shown.length - 1].id) } : {}),
  };
}

/** One document's text; an unknown uri, or another agent's or organization's document, is "not found". */
export async function readRunResource(run: RunRow, uri: string, signal: AbortSignal): Promise<ReadResourceResult> {
  const fileId = uri.startsWith(URI_PREFIX) ? uri.slice(URI_PREFIX.length) : "";
  const notFound = () =>
    new ProtocolError(RESOURCE_NOT_FOUND, "Resource not found: not a document of this agent.", { uri });
  if (!looksLikeId("file", fileId)) throw notFound();
  await countRequest(run);
  const file = run.agentId === null ? null : await agentDocument(run.organizationId, run.agentId, fileId);
  if (!file) throw notFound();
  let text: string;
  try {
    text = (await fileText({ dataDir: env.dataDir, signal }, file)).text;
  } catch (error) {
    // The file tools' own refusal (content missing from storage, cancelled): our words, safe to pass on.
    if (error instanceof ToolError) throw new ProtocolError(-32603, error.message, { code: error.code });
    throw error;
  }
  const shown = truncateText(text, RESOURCE_MAX_CHARS);
  return {
    contents: [
      {
        uri,
        mimeType: file.mimeType === "application/pdf" ? "text/plain" : file.mimeType,
        text: shown,
        _meta: {
          "guichet/untrusted": true,
          "guichet/truncated": shown.length < text.length,
          "guichet/total_characters": text.length,
        },
      },
    ],
  };
}
