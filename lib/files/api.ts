import { z } from "zod";
import { defineEndpoint } from "@/lib/http/endpoint";
import { ListQuery } from "@/lib/http/validation";
import { isoOffset, isoOffsetOrNull } from "@/lib/time";

export const allowedMimeTypes = ["text/plain", "text/markdown", "text/csv", "application/json", "application/pdf"] as const;
export type AllowedMimeType = (typeof allowedMimeTypes)[number];

export const FileObject = z.object({
  id: z.string(),
  filename: z.string(),
  bytes: z.number().int(),
  mime_type: z.enum(allowedMimeTypes),
  sha256: z.string().meta({ description: "SHA-256 of the content, hex." }),
  agent: z.string().nullable().meta({ description: "Set for a knowledge document: the agent that carries it." }),
  expires_at: z.string().nullable().meta({ description: "When the file disappears; null for knowledge documents." }),
  created_at: z.string(),
});
export type FileObject = z.infer<typeof FileObject>;

export interface FileRow {
  id: string;
  filename: string;
  bytes: number;
  mimeType: string;
  sha256: string;
  agentId: string | null;
  expiresAt: Date | null;
  createdAt: Date;
}

export function serializeFile(file: FileRow): FileObject {
  return {
    id: file.id,
    filename: file.filename,
    bytes: file.bytes,
    mime_type: file.mimeType as AllowedMimeType,
    sha256: file.sha256,
    agent: file.agentId,
    expires_at: isoOffsetOrNull(file.expiresAt),
    created_at: isoOffset(file.createdAt),
  };
}

export const FileParams = z.strictObject({ file: z.string().min(1).max(64) });
const tag = "Files";

export const listFilesEndpoint = defineEndpoint({
  method: "GET", path: "/v1/files", tag, summary: "List the organization's files (knowledge documents included), newest first; expired files are gone",
  auth: "both", scopes: ["files:read"], query: ListQuery,
  response: z.object({ data: z.array(FileObject), next_cursor: z.string().nullable() }),
});

export const uploadFileEndpoint = defineEndpoint({
  method: "POST", path: "/v1/files", tag, summary: "Upload a file (multipart, one field `file`); the type is detected from the content",
  auth: "both", scopes: ["files:write"], multipart: true, status: 201,
  response: z.object({ data: FileObject }),
  errors: ["storage_quota_exceeded", "file_too_large", "unsupported_file_type", "unsupported_media_type"],
});

export const getFileEndpoint = defineEndpoint({
  method: "GET", path: "/v1/files/{file}", tag, summary: "Retrieve a file's description",
  auth: "both", scopes: ["files:read"], params: FileParams,
  response: z.object({ data: FileObject }), errors: ["not_found"],
});

export const getFileContentEndpoint = defineEndpoint({
  method: "GET", path: "/v1/files/{file}/content", tag, summary: "Download a file's bytes",
  auth: "both", scopes: ["files:read"], params: FileParams, errors: ["not_found"],
});

export const deleteFileEndpoint = defineEndpoint({
  method: "DELETE", path: "/v1/files/{file}", tag, summary: "Delete a file and its bytes; a knowledge document is deleted through its agent",
  auth: "both", scopes: ["files:write"], params: FileParams,
  response: z.object({ data: z.object({ id: z.string(), deleted: z.literal(true) }) }), errors: ["not_found", "file_in_use"],
});
