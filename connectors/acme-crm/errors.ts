// Typed tool errors of the CRM Acme service. The code drives control flow, the
// message is for humans (in French: the service's users are), `field` is a JSON pointer into the tool arguments.

export type ToolErrorCode =
  | "INVALID_ARGUMENTS"
  | "NOT_FOUND"
  | "VERSION_CONFLICT"
  | "IDEMPOTENCY_KEY_REUSED"
  | "AMOUNT_EXCEEDS_REMAINING"
  | "CURRENCY_MISMATCH"
  | "INTERNAL_ERROR";

export interface ToolErrorBody {
  code: ToolErrorCode;
  message: string;
  retryable: boolean;
  field?: string;
  details?: Record<string, unknown>;
}

export class ToolError extends Error {
  readonly code: ToolErrorCode;
  readonly field?: string;
  readonly retryable: boolean;
  readonly details?: Record<string, unknown>;

  constructor(
    code: ToolErrorCode,
    message: string,
    opts: { field?: string; retryable?: boolean; details?: Record<string, unknown> } = {},
  ) {
    super(message);
    this.name = "ToolError";
    this.code = code;
    this.field = opts.field;
    this.retryable = opts.retryable ?? false;
    this.details = opts.details;
  }

  toBody(): ToolErrorBody {
    const body: ToolErrorBody = { code: this.code, message: this.message, retryable: this.retryable };
    if (this.field !== undefined) body.field = this.field;
    if (this.details !== undefined) body.details = this.details;
    return body;
  }

  static fromBody(body: ToolErrorBody): ToolError {
    return new ToolError(body.code, body.message, {
      field: body.field,
      retryable: body.retryable,
      details: body.details,
    });
  }
}

export const notFound = (what: string, id: string, field: string) =>
  new ToolError("NOT_FOUND", `${what} ${id} introuvable`, { field });
