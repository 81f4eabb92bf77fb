import { isDatabaseUnavailable } from "@/lib/db/unavailable";
import { log } from "@/lib/log";

// One error class, one code → status table. Handlers throw; lib/http/handler.ts
// turns every error into the single envelope.

export const errorStatus = {
  bad_request: 400,
  invalid_json: 400,
  json_too_deep: 400,
  unknown_parameter: 400,
  invalid_parameter: 400,
  agent_inactive: 400,
  storage_quota_exceeded: 400,
  unauthenticated: 401,
  insufficient_scope: 403,
  forbidden: 403,
  not_found: 404,
  method_not_allowed: 405,
  agent_name_taken: 409,
  file_in_use: 409,
  request_in_progress: 409,
  idempotency_secret_not_replayable: 409,
  conflict: 409,
  payload_too_large: 413,
  file_too_large: 413,
  unsupported_media_type: 415,
  unsupported_file_type: 415,
  idempotency_key_reused: 422,
  model_unavailable: 422,
  unknown_tool: 422,
  tool_unavailable: 422,
  output_schema_unsupported: 422,
  too_many_documents: 422,
  quota_exceeded: 422,
  mcp_sync_failed: 422,
  url_not_allowed: 422,
  mcp_tool_changed: 409,
  connection_auth_mismatch: 409,
  connection_required: 409,
  connection_unavailable: 422,
  proposal_not_pending: 409,
  proposal_superseded: 409,
  proposal_revised: 409,
  revision_unchanged: 422,
  revision_invalid: 422,
  policy_denied: 403,
  arguments_hash_mismatch: 409,
  policy_version_conflict: 409,
  shadow_policy_exists: 409,
  proposal_expired: 409,
  already_decided: 409,
  operation_not_unknown: 409,
  agent_deleted: 409,
  run_not_waiting: 409,
  approver_not_authorized: 403,
  owner_role_reserved: 403,
  password_incorrect: 403,
  last_owner: 409,
  email_unavailable: 409,
  invitation_invalid: 410,
  self_approval_forbidden: 403,
  run_not_yours: 403,
  widget_origin_not_allowed: 403,
  widget_unavailable: 403,
  user_token_invalid: 401,
  visitor_token_invalid: 401,
  preview_token_invalid: 401,
  already_set_up: 409,
  email_taken: 409,
  rate_limited: 429,
  internal_error: 500,
  service_unavailable: 503,
  model_provider_unavailable: 503,
} as const;

export type ErrorCode = keyof typeof errorStatus;

export interface FieldError {
  field: string;
  code: string;
  message: string;
}

export class ApiError extends Error {
  readonly code: ErrorCode;
  readonly status: number;
  readonly errors?: FieldError[];
  readonly reason?: Record<string, unknown>;
  readonly headers?: Record<string, string>;

  constructor(
    code: ErrorCode,
    message: string,
    extra: { errors?: FieldError[]; reason?: Record<string, unknown>; headers?: Record<string, string> } = {},
  ) {
    super(message);
    this.name = "ApiError";
    this.code = code;
    this.status = errorStatus[code];
    this.errors = extra.errors;
    this.reason = extra.reason;
    this.headers = extra.headers;
  }
}

export const notFound = (what = "Resource") => new ApiError("not_found", `${what} not found.`);

export interface ErrorEnvelope {
  error: {
    code: string;
    message: string;
    errors?: FieldError[];
    reason?: Record<string, unknown>;
    request_id: string;
  };
}

/** Maps anything thrown to the envelope. Unknown errors never leak details. */
export function toErrorEnvelope(
  error: unknown,
  requestId: string,
): { status: number; body: ErrorEnvelope; headers: Record<string, string> } {
  if (error instanceof ApiError) {
    const body: ErrorEnvelope = { error: { code: error.code, message: error.message, request_id: requestId } };
    if (error.errors) body.error.errors = error.errors;
    if (error.reason) body.error.reason = error.reason;
    return { status: error.status, body, headers: error.headers ?? {} };
  }
  const prismaCode = typeof error === "object" && error !== null ? (error as { code?: unknown }).code : undefined;
  if (prismaCode === "P2025") return toErrorEnvelope(notFound(), requestId);
  if (prismaCode === "P2002")
    return toErrorEnvelope(new ApiError("conflict", "The resource already exists."), requestId);
  if (isDatabaseUnavailable(error)) {
    log("warn", "database_unavailable", {
      request_id: requestId,
      error: error instanceof Error ? error.name : "unknown",
    });
    return toErrorEnvelope(
      new ApiError("service_unavailable", "Guichet's database cannot be reached just now: retry shortly.", {
        headers: { "retry-after": "1" },
      }),
      requestId,
    );
  }
  log("error", "unhandled_error", {
    request_id: requestId,
    error: error instanceof Error ? `${error.name}: ${error.message}` : "non-error thrown",
  });
  return {
    status: 500,
    body: { error: { code: "internal_error", message: "Something went wrong on our side.", request_id: requestId } },
    headers: {},
  };
}
