import { z } from "zod";

// A member's own connections to connectors that act as each member
// (`per_user_token`, `oauth`): what the member and the console see. Tokens are
// never part of any of these objects.

export const ConnectionState = z.enum(["connected", "needs_reconnect", "not_connected"]);
export type ConnectionState = z.infer<typeof ConnectionState>;

export const PerMemberAuth = z.enum(["per_user_token", "oauth"]);

export const ConnectionObject = z.object({
  server: z.object({ id: z.number().int(), name: z.string(), auth: PerMemberAuth }),
  state: ConnectionState,
  /** The account the upstream says this connection is (an e-mail, a user name), when it says one. */
  account: z.string().nullable(),
  /** When the access token expires (refreshed before then for `oauth`); null when the upstream gave no expiry. */
  expires_at: z.string().nullable(),
  last_used_at: z.string().nullable(),
  /** The console page that connects (or reconnects) this server for the signed-in member. */
  connect_url: z.string(),
});
export type ConnectionObject = z.infer<typeof ConnectionObject>;

export const ConnectionParams = z.strictObject({ server: z.string().min(1).max(20) });

export const CONNECTION_TOKEN_MAX = 4096;
export const ConnectionTokenBody = z.strictObject({ token: z.string().min(1).max(CONNECTION_TOKEN_MAX) });
export type ConnectionTokenBody = z.infer<typeof ConnectionTokenBody>;

/** A path of this site to come back to: relative, never another origin (`//host`, `/\host`), no control characters. */
export const ReturnTo = z
  .string()
  .max(512)
  .refine(
    (value) => /^\/(?![/\\])[^\s\\]*$/.test(value),
    "Must be a relative path of this site (starting with one /).",
  );

export const ConnectionAuthorizeBody = z.strictObject({ return_to: ReturnTo.optional() });
export type ConnectionAuthorizeBody = z.infer<typeof ConnectionAuthorizeBody>;

export const ConnectionAuthorizationObject = z.object({ authorization_url: z.string() });

export const ConnectionCountsObject = z.object({
  connected: z.number().int(),
  needs_reconnect: z.number().int(),
});

/** Where a member connects a server in the console; `origin` is the console's own when known. */
export function connectPath(serverId: number): string {
  return `/connexions/${serverId}/connecter`;
}
