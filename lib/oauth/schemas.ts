import { z } from "zod";

// Connected applications' zod schemas and types: safe for the browser (no server import).

export const OAuthGrantParams = z.strictObject({ grant: z.string().regex(/^ogr_[0-9a-z]{26}$/, "must be a grant id") });
export const OAuthClientParams = z.strictObject({
  client: z.string().regex(/^ocl_[0-9a-z]{26}$/, "must be a client id"),
});

export const OAuthClientObject = z.object({
  id: z.string(),
  client_id: z.string().meta({ description: "What the client sends: Guichet's id, or its metadata document's URL." }),
  kind: z.enum(["registered", "metadata_document"]),
  name: z.string().meta({ description: "As the client declares it: not verified." }),
  uri: z.string().nullable(),
  redirect_uris: z.array(z.string()),
  created_at: z.string(),
  active_grants: z.number().int().meta({ description: "Live grants of this organization's members to it." }),
});
export type OAuthClientObject = z.infer<typeof OAuthClientObject>;

export const OAuthGrantObject = z.object({
  id: z.string(),
  client: z.object({ id: z.string(), name: z.string(), kind: z.enum(["registered", "metadata_document"]) }),
  agent: z.object({ id: z.string(), name: z.string().nullable() }),
  member: z.object({ id: z.string(), name: z.string() }),
  scope: z.enum(["mcp:read", "mcp:read_write"]),
  created_at: z.string(),
  last_used_at: z.string().nullable(),
});
export type OAuthGrantObject = z.infer<typeof OAuthGrantObject>;

export const scopeLabels = { "mcp:read": "Lecture", "mcp:read_write": "Lecture et écriture" } as const;
