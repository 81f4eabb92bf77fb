import { z } from "zod";
import { Scope } from "@/lib/auth/scopes";

// API keys' zod schemas and types: safe for the browser (no server import).

export const ApiKeyCreateBody = z.strictObject({
  name: z.string().trim().min(1).max(100),
  scopes: z.array(Scope).min(1).max(Scope.options.length),
});
export type ApiKeyCreateBody = z.infer<typeof ApiKeyCreateBody>;

export const ApiKeyParams = z.strictObject({ key: z.string().min(1).max(64) });

export const ApiKeyObject = z.object({
  id: z.string(),
  name: z.string(),
  prefix: z.string(),
  scopes: z.array(Scope),
  last_used_at: z.string().nullable(),
  revoked_at: z.string().nullable(),
  created_at: z.string(),
});
export type ApiKeyObject = z.infer<typeof ApiKeyObject>;
