// The stable tool error codes: same meaning for every tool, and a
// new code is a reviewed change. Every executor throws ToolError; the
// dispatcher turns it into the envelope.

export const toolErrorCodes = [
  "UNKNOWN_TOOL",
  "TOOL_NOT_IN_RUN",
  "TOOL_UNAVAILABLE",
  "UNSUPPORTED_VERSION",
  "INVALID_ARGUMENTS",
  "ARGUMENTS_TOO_LARGE",
  "APPROVAL_REQUIRED",
  // A preview whose after equals the current before: no proposal, nothing to approve or commit. An outcome, not retried.
  "NO_CHANGE",
  // The policy table says `deny` for this write: nothing was proposed or executed.
  "POLICY_DENIED",
  "PROPOSAL_NOT_FOUND",
  "PROPOSAL_NOT_APPROVED",
  "PROPOSAL_EXPIRED",
  "PROPOSAL_CONSUMED",
  "APPROVER_NOT_AUTHORIZED",
  "VERSION_CONFLICT",
  "IDEMPOTENCY_KEY_REUSED",
  "OUTCOME_UNKNOWN",
  "RATE_LIMITED",
  "TIMEOUT",
  "UPSTREAM_ERROR",
  "INVALID_OUTPUT",
  "CANCELLED",
] as const;

export type ToolErrorCode = (typeof toolErrorCodes)[number];

export interface ToolErrorDetails {
  retryable?: boolean;
  /** JSON pointer into the arguments. */
  field?: string | null;
  retry_after_ms?: number;
  proposal_id?: string | null;
  /** The service's own code of an UPSTREAM_ERROR refusal (`AMOUNT_EXCEEDS_REMAINING`…), for the model to branch on. */
  upstream_code?: string;
  /** Why a tool is unavailable to this run's member, and where they connect it (TOOL_UNAVAILABLE). */
  reason?: ToolErrorReason;
}

export interface ToolErrorReason {
  code: "mcp_member_not_connected";
  message: string;
  connect_url: string;
  state: "not_connected" | "needs_reconnect";
}

export class ToolError extends Error {
  readonly code: ToolErrorCode;
  readonly retryable: boolean;
  readonly field: string | null;
  readonly retryAfterMs?: number;
  readonly proposalId?: string | null;
  readonly upstreamCode?: string;
  readonly reason?: ToolErrorReason;

  constructor(code: ToolErrorCode, message: string, details: ToolErrorDetails = {}) {
    super(message);
    this.name = "ToolError";
    this.code = code;
    this.retryable = details.retryable ?? false;
    this.field = details.field ?? null;
    if (details.retry_after_ms !== undefined) this.retryAfterMs = details.retry_after_ms;
    if (details.proposal_id !== undefined) this.proposalId = details.proposal_id;
    if (details.upstream_code !== undefined) this.upstreamCode = details.upstream_code;
    if (details.reason !== undefined) this.reason = details.reason;
  }
}

/** Anything an executor threw, as a ToolError. Unexpected exceptions never show their text. */
export function asToolError(error: unknown): ToolError {
  if (error instanceof ToolError) return error;
  return new ToolError("UPSTREAM_ERROR", "The tool failed unexpectedly.", { retryable: false });
}
