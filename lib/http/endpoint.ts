import type { z } from "zod";
import { hasAnyScope, scopesForRole, type Role, type Scope } from "@/lib/auth/scopes";
import type { ErrorCode } from "./errors";

export type HttpMethod = "GET" | "POST" | "PUT" | "PATCH" | "DELETE";
export type AuthMode = "session" | "apiKey" | "both";

/**
 * The declaration of one /v1 endpoint: who may call it and the zod schemas that
 * validate its input and describe its output. Pure data (no database import), so
 * the OpenAPI document and the method table are built from the same objects that
 * the route handlers use.
 */
export interface Endpoint<
  P extends z.ZodType = z.ZodType,
  Q extends z.ZodType = z.ZodType,
  B extends z.ZodType = z.ZodType,
  R extends z.ZodType = z.ZodType,
> {
  method: HttpMethod;
  path: string; // OpenAPI style: /v1/agents/{agent}
  summary: string;
  tag: string;
  auth: AuthMode;
  /** Alternatives: any one is enough. */
  scopes?: Scope[];
  /** For session callers: the roles allowed. */
  roles?: Role[];
  params?: P;
  query?: Q;
  body?: B;
  /** multipart/form-data endpoints read the request themselves. */
  multipart?: boolean;
  /** Its type parameter is what the console's typed client returns (`lib/client/call.ts`). */
  response?: R;
  /**
   * What an Idempotency-Key replays. "stored" (default): the first response, kept
   * 24 h. "re-execute": nothing of the response is kept — for endpoints whose
   * responses are payloads we must not store (tool results) and whose effect is
   * idempotent in the domain itself; a completed duplicate runs again. "secret":
   * the success response carries a secret shown once (an API key); the record
   * keeps only a marker and a completed duplicate answers 409
   * idempotency_secret_not_replayable.
   */
  idempotencyReplay?: "stored" | "re-execute" | "secret";
  /**
   * Deepest nesting the body reader lets through (default GUICHET_MAX_JSON_DEPTH).
   * Raised only where the handler bounds depth itself and must answer in its own
   * terms (tool-call arguments: a refused call is still a step of the run).
   */
  maxJsonDepth?: number;
  status?: number;
  errors?: ErrorCode[];
  /**
   * Answers a file to download instead of JSON: its media type (or the types it
   * may have), what the file holds, and whether it is bytes (`binary`) rather than text.
   */
  download?: { contentType: string | readonly string[]; description: string; binary?: boolean };
  /** Answers Server-Sent Events too (text/event-stream): each event's name and the schema of its `data`. */
  eventStream?: { description: string; events: Record<string, z.ZodType> };
}

export function defineEndpoint<P extends z.ZodType, Q extends z.ZodType, B extends z.ZodType, R extends z.ZodType>(
  spec: Endpoint<P, Q, B, R>,
): Endpoint<P, Q, B, R> {
  return spec;
}

/**
 * A route outside /v1 that the console calls before anyone is signed in
 * (`app/api/setup`, `app/api/invitations/accept`): its method, path and schemas,
 * read by its handler and by the typed client alike. Not in the OpenAPI document.
 */
export type PublicRoute<B extends z.ZodType = z.ZodType, R extends z.ZodType = z.ZodType> = Pick<
  Endpoint<z.ZodType, z.ZodType, B, R>,
  "method" | "path" | "body" | "response"
> & { body: B; response: R };

export function definePublicRoute<B extends z.ZodType, R extends z.ZodType>(
  spec: PublicRoute<B, R>,
): PublicRoute<B, R> {
  return spec;
}

/**
 * Whether a signed-in member with this role passes the endpoint's rules, as
 * lib/http/handler.ts applies them: pages show what leads to an endpoint (a
 * form, a button, a link) only to those who may call it.
 */
export function mayCall(endpoint: Pick<Endpoint, "auth" | "scopes" | "roles">, role: Role): boolean {
  if (endpoint.auth === "apiKey") return false;
  if (endpoint.roles && !endpoint.roles.includes(role)) return false;
  return !endpoint.scopes || hasAnyScope(scopesForRole(role), endpoint.scopes);
}
