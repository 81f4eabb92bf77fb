import { readFile } from "node:fs/promises";
import path from "node:path";
import { fileTypeFromBuffer } from "file-type";
import { ApiError } from "@/lib/http/errors";
import type { AllowedMimeType } from "./api";

const unsupported = (why: string) =>
  new ApiError(
    "unsupported_file_type",
    `Unsupported file type: ${why} Allowed: plain text, Markdown, CSV, JSON (UTF-8) and PDF.`,
  );

/**
 * The type comes from the content, never from the name alone: PDF by its
 * signature (file-type); otherwise the bytes must be UTF-8 text, and only then
 * does the extension choose between Markdown, CSV, JSON (which must parse) and
 * plain text.
 */
export async function detectFileType(upload: {
  head: Buffer;
  text: boolean;
  filename: string;
  tempPath: string;
}): Promise<AllowedMimeType> {
  const detected = await fileTypeFromBuffer(upload.head);
  if (detected?.mime === "application/pdf") return "application/pdf";
  if (detected) throw unsupported(`the content is ${detected.mime}.`);
  if (!upload.text) throw unsupported("the content is neither PDF nor UTF-8 text.");
  const extension = path.extname(upload.filename).toLowerCase();
  switch (extension) {
    case ".pdf":
      throw unsupported("the name says PDF but the content is text.");
    case ".json":
      try {
        JSON.parse(await readFile(upload.tempPath, "utf8"));
      } catch {
        throw unsupported("the name says JSON but the content does not parse as JSON.");
      }
      return "application/json";
    case ".csv":
      return "text/csv";
    case ".md":
    case ".markdown":
      return "text/markdown";
    default:
      return "text/plain";
  }
}
