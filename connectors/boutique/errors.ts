// Typed tool errors of Boutique, shaped like CRM Acme's: the code drives
// control flow, the message is for people (in French), `field` is a JSON
// pointer into the tool arguments.

export type ShopErrorCode =
  | "INVALID_ARGUMENTS"
  | "NOT_FOUND"
  | "VERSION_CONFLICT"
  | "ORDER_NOT_CANCELLABLE"
  | "IDEMPOTENCY_KEY_REUSED"
  | "INTERNAL_ERROR";

export interface ShopErrorBody {
  code: ShopErrorCode;
  message: string;
  retryable: boolean;
  field?: string;
  details?: Record<string, unknown>;
}

export class ShopError extends Error {
  readonly code: ShopErrorCode;
  readonly field?: string;
  readonly retryable: boolean;
  readonly details?: Record<string, unknown>;

  constructor(
    code: ShopErrorCode,
    message: string,
    opts: { field?: string; retryable?: boolean; details?: Record<string, unknown> } = {},
  ) {
    super(message);
    this.name = "ShopError";
    this.code = code;
    this.field = opts.field;
    this.retryable = opts.retryable ?? false;
    this.details = opts.details;
  }

  toBody(): ShopErrorBody {
    const body: ShopErrorBody = { code: this.code, message: this.message, retryable: this.retryable };
    if (this.field !== undefined) body.field = this.field;
    if (this.details !== undefined) body.details = this.details;
    return body;
  }

  static fromBody(body: ShopErrorBody): ShopError {
    return new ShopError(body.code, body.message, {
      field: body.field,
      retryable: body.retryable,
      details: body.details,
    });
  }
}

export const orderNotFound = (orderId: string) =>
  new ShopError("NOT_FOUND", `Commande ${orderId} introuvable`, { field: "/order_id" });
