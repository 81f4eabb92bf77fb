import { JSON_SCHEMA_2020, type JsonSchema } from "../native/types";
import { ToolError } from "@/lib/executors/errors";
import { throwIfCancelled } from "../native/errors";
import { truncateText } from "../native/upstream";
import type { ExecutionContext, Executor } from "../context";
import { fileText, runFile, runFiles, type RunFile } from "./store";

// The four file tools: list, inspect, read a page, search. File content was
// written by someone else: every result is marked untrusted and bounded.

const fileId = { type: "string", pattern: "^file_[0-9a-z]{26}$", description: "A file id from list_uploaded_files." };
const shape = (properties: Record<string, unknown>, required: string[]): JsonSchema => ({
  type: "object",
  properties,
  required,
  additionalProperties: false,
});
const closed = (properties: Record<string, unknown>, required: string[]): JsonSchema => ({
  $schema: JSON_SCHEMA_2020,
  ...shape(properties, required),
});
const untrusted = { const: true };
const fileSummary = {
  type: "object",
  properties: {
    file_id: { type: "string" },
    filename: { type: "string" },
    mime_type: { type: "string" },
    bytes: { type: "integer", minimum: 0 },
    source: { enum: ["run", "agent_document"] },
  },
  required: ["file_id", "filename", "mime_type", "bytes", "source"],
  additionalProperties: false,
};

export const READ_DEFAULT_CHARS = 8000;
const MAX_LINE_CHARS = 500;

export const fileToolSchemas: Record<
  "list_uploaded_files" | "inspect_file" | "read_uploaded_file" | "search_text",
  { input: JsonSchema; output: JsonSchema }
> = {
  list_uploaded_files: {
    input: closed({}, []),
    output: closed({ files: { type: "array", items: fileSummary, maxItems: 100 }, untrusted }, ["files", "untrusted"]),
  },
  inspect_file: {
    input: closed({ file_id: fileId }, ["file_id"]),
    output: closed(
      {
        file: fileSummary,
        sha256: { type: "string" },
        pages: { type: ["integer", "null"] },
        lines: { type: "integer", minimum: 0 },
        characters: { type: "integer", minimum: 0 },
        columns: { type: ["array", "null"], items: { type: "string" }, maxItems: 100 },
        untrusted,
      },
      ["file", "sha256", "pages", "lines", "characters", "columns", "untrusted"],
    ),
  },
  read_uploaded_file: {
    input: closed(
      {
        file_id: fileId,
        cursor: { type: "string", minLength: 1, maxLength: 200, description: "next_cursor of the previous page." },
        max_chars: { type: "integer", minimum: 500, maximum: 20_000, default: READ_DEFAULT_CHARS },
      },
      ["file_id"],
    ),
    output: closed(
      {
        file_id: { type: "string" },
        text: { type: "string", maxLength: 20_000 },
        offset: { type: "integer", minimum: 0 },
        total_characters: { type: "integer", minimum: 0 },
        next_cursor: { type: ["string", "null"] },
        untrusted,
      },
      ["file_id", "text", "offset", "total_characters", "next_cursor", "untrusted"],
    ),
  },
  search_text: {
    input: closed(
      {
        query: {
          type: "string",
          minLength: 1,
          maxLength: 200,
          description: "Words to find, matched as written (no patterns).",
        },
        file_ids: { type: "array", items: fileId, minItems: 1, maxItems: 40, uniqueItems: true },
        case_sensitive: { type: "boolean", default: false },
        max_results: { type: "integer", minimum: 1, maximum: 50, default: 20 },
      },
      ["query"],
    ),
    output: closed(
      {
        matches: {
          type: "array",
          maxItems: 50,
          items: shape(
            {
              file_id: { type: "string" },
              filename: { type: "string" },
              line: { type: "integer", minimum: 1 },
              text: { type: "string", maxLength: MAX_LINE_CHARS },
            },
            ["file_id", "filename", "line", "text"],
          ),
        },
        truncated: { type: "boolean" },
        untrusted,
      },
      ["matches", "truncated", "untrusted"],
    ),
  },
};

function summary(file: RunFile) {
  return {
    file_id: file.id,
    filename: file.filename,
    mime_type: file.mimeType,
    bytes: file.bytes,
    source: file.source,
  };
}

function encodeCursor(fileIdValue: string, offset: number): string {
  return Buffer.from(JSON.stringify({ f: fileIdValue, o: offset })).toString("base64url");
}

function decodeCursor(cursor: string, fileIdValue: string): number {
  try {
    const value = JSON.parse(Buffer.from(cursor, "base64url").toString("utf8")) as { f?: unknown; o?: unknown };
    if (value.f === fileIdValue && Number.isInteger(value.o) && (value.o as number) >= 0) return value.o as number;
  } catch {
    // fall through
  }
  throw new ToolError("INVALID_ARGUMENTS", "This cursor is not a next_cursor of this file.", { field: "/cursor" });
}

function csvHeader(text: string): string[] | null {
  const first = text.split("\n", 1)[0];
  if (!first) return null;
  return first
    .split(/[,;\t]/)
    .map((c) => c.trim().replace(/^"|"$/g, ""))
    .slice(0, 100)
    .map((c) => truncateText(c, 200));
}

async function listUploadedFiles(_args: unknown, ctx: ExecutionContext) {
  throwIfCancelled(ctx.signal);
  return { files: (await runFiles(ctx)).slice(0, 100).map(summary), untrusted: true };
}

async function inspectFile(args: unknown, ctx: ExecutionContext) {
  const { file_id } = args as { file_id: string };
  const file = await runFile(ctx, file_id);
  const { text, pages } = await fileText(ctx, file);
  return {
    file: summary(file),
    sha256: file.sha256,
    pages,
    lines: text === "" ? 0 : text.split("\n").length,
    characters: text.length,
    columns: file.mimeType === "text/csv" ? csvHeader(text) : null,
    untrusted: true,
  };
}

async function readUploadedFile(args: unknown, ctx: ExecutionContext) {
  const input = args as { file_id: string; cursor?: string; max_chars?: number };
  const file = await runFile(ctx, input.file_id);
  const offset = input.cursor === undefined ? 0 : decodeCursor(input.cursor, file.id);
  const { text } = await fileText(ctx, file);
  const page = truncateText(text.slice(offset), input.max_chars ?? READ_DEFAULT_CHARS);
  const end = offset + page.length;
  return {
    file_id: file.id,
    text: page,
    offset,
    total_characters: text.length,
    next_cursor: end < text.length ? encodeCursor(file.id, end) : null,
    untrusted: true,
  };
}

async function searchText(args: unknown, ctx: ExecutionContext) {
  const input = args as { query: string; file_ids?: string[]; case_sensitive?: boolean; max_results?: number };
  const all = await runFiles(ctx);
  const files = input.file_ids ? input.file_ids.map((id, i) => all.find((f) => f.id === id) ?? missing(i)) : all;
  const max = input.max_results ?? 20;
  const needle = input.case_sensitive ? input.query : input.query.toLowerCase();
  const matches: { file_id: string; filename: string; line: number; text: string }[] = [];
  let truncated = false;
  for (const file of files) {
    throwIfCancelled(ctx.signal);
    const lines = (await fileText(ctx, file)).text.split("\n");
    for (let i = 0; i < lines.length; i++) {
      const haystack = input.case_sensitive ? lines[i] : lines[i].toLowerCase();
      if (!haystack.includes(needle)) continue;
      if (matches.length === max) {
        truncated = true;
        break;
      }
      matches.push({
        file_id: file.id,
        filename: file.filename,
        line: i + 1,
        text: truncateText(lines[i].trim(), MAX_LINE_CHARS),
      });
    }
    if (truncated) break;
  }
  return { matches, truncated, untrusted: true };
}

function missing(index: number): never {
  throw new ToolError("INVALID_ARGUMENTS", "No file with this id is available to this run.", {
    field: `/file_ids/${index}`,
  });
}

export const fileExecutors: Readonly<Record<keyof typeof fileToolSchemas, Executor>> = Object.freeze({
  list_uploaded_files: { execute: listUploadedFiles },
  inspect_file: { execute: inspectFile },
  read_uploaded_file: { execute: readUploadedFile },
  search_text: { execute: searchText },
});
