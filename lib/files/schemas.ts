import { z } from "zod";

// Files' zod schemas and types: safe for the browser (no server import).

export const allowedMimeTypes = [
  "text/plain",
  "text/markdown",
  "text/csv",
  "application/json",
  "application/pdf",
] as const;
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

export const FileParams = z.strictObject({ file: z.string().min(1).max(64) });
