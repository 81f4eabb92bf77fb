import { z } from "zod";
import { defineEndpoint } from "@/lib/http/endpoint";
import { ListQuery } from "@/lib/http/list-query";
import { isoOffset, isoOffsetOrNull } from "@/lib/time";
import { allowedMimeTypes, FileObject, FileParams, type AllowedMimeType } from "./schemas";

export * from "./schemas";

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

const tag = "Files";

export const listFilesEndpoint = defineEndpoint({
  method: "GET",
  path: "/v1/files",
  tag,
  summary: "List the organization's files (knowledge documents included), newest first; expired files are gone",
  auth: "both",
  scopes: ["files:read"],
  query: ListQuery,
  response: z.object({ data: z.array(FileObject), next_cursor: z.string().nullable() }),
});

export const uploadFileEndpoint = defineEndpoint({
  method: "POST",
  path: "/v1/files",
  tag,
  summary: "Upload a file (multipart, one field `file`); the type is detected from the content",
  auth: "both",
  scopes: ["files:write"],
  multipart: true,
  status: 201,
  response: z.object({ data: FileObject }),
  errors: ["storage_quota_exceeded", "file_too_large", "unsupported_file_type", "unsupported_media_type"],
});

export const getFileEndpoint = defineEndpoint({
  method: "GET",
  path: "/v1/files/{file}",
  tag,
  summary: "Retrieve a file's description",
  auth: "both",
  scopes: ["files:read"],
  params: FileParams,
  response: z.object({ data: FileObject }),
  errors: ["not_found"],
});

export const getFileContentEndpoint = defineEndpoint({
  method: "GET",
  path: "/v1/files/{file}/content",
  tag,
  summary: "Download a file's bytes",
  auth: "both",
  scopes: ["files:read"],
  params: FileParams,
  download: {
    contentType: allowedMimeTypes,
    binary: true,
    description:
      "The file's bytes as uploaded, under its detected media type (`charset=utf-8` added for text and JSON); read them as bytes, not as JSON.",
  },
  errors: ["not_found"],
});

export const deleteFileEndpoint = defineEndpoint({
  method: "DELETE",
  path: "/v1/files/{file}",
  tag,
  summary: "Delete a file and its bytes; a knowledge document is deleted through its agent",
  auth: "both",
  scopes: ["files:write"],
  params: FileParams,
  response: z.object({ data: z.object({ id: z.string(), deleted: z.literal(true) }) }),
  errors: ["not_found", "file_in_use"],
});
