// JSON Schemas of Boutique's tools (2020-12, no $schema keyword: the MCP default dialect).
// Every input object is closed; outputs describe successes only.

export const ORDER_ID = { type: "string", pattern: "^CMD-[0-9]{4,10}$" };
export const IDEMPOTENCY_KEY = { type: "string", minLength: 8, maxLength: 200, pattern: "^[\\x21-\\x7e]+$" };
export const STATUS = { type: "string", enum: ["paid", "shipped", "delivered", "cancelled"] };
export const MONEY = {
  type: "object",
  properties: { value_minor: { type: "integer" }, currency: { type: "string", pattern: "^[A-Z]{3}$" } },
  required: ["value_minor", "currency"],
  additionalProperties: false,
};
export const ORDER_SUMMARY = {
  type: "object",
  properties: {
    order_id: { type: "string" },
    status: STATUS,
    placed_at: { type: "string", format: "date-time" },
    total: MONEY,
    items_count: { type: "integer", minimum: 0 },
    summary: { type: "string" },
  },
  required: ["order_id", "status", "placed_at", "total", "items_count", "summary"],
  additionalProperties: false,
};
export const ORDER_DETAIL = {
  type: "object",
  properties: {
    order_id: { type: "string" },
    status: STATUS,
    placed_at: { type: "string", format: "date-time" },
    total: MONEY,
    items: {
      type: "array",
      items: {
        type: "object",
        properties: {
          label: { type: "string" },
          quantity: { type: "integer", minimum: 1 },
          unit_price: MONEY,
        },
        required: ["label", "quantity", "unit_price"],
        additionalProperties: false,
      },
    },
    shipping_city: { type: "string" },
    version: { type: "integer", minimum: 1 },
    updated_at: { type: "string", format: "date-time" },
  },
  required: ["order_id", "status", "placed_at", "total", "items", "shipping_city", "version", "updated_at"],
  additionalProperties: false,
};
export const ACCOUNT = {
  type: "object",
  properties: { email: { type: "string" }, name: { type: "string" } },
  required: ["email", "name"],
  additionalProperties: false,
};

export const PREVIEW_CANCEL_OUT = {
  type: "object",
  properties: {
    target: {
      type: "object",
      properties: { type: { const: "order" }, id: { type: "string" }, version: { type: "integer", minimum: 1 } },
      required: ["type", "id", "version"],
      additionalProperties: false,
    },
    arguments: {
      type: "object",
      properties: { order_id: { type: "string" } },
      required: ["order_id"],
      additionalProperties: false,
    },
    effect: { type: "string" },
    changes: {
      type: "array",
      items: {
        type: "object",
        properties: { field: { type: "string" }, before: {}, after: {} },
        required: ["field", "before", "after"],
        additionalProperties: false,
      },
    },
    labels: { type: "object", additionalProperties: { type: "string" } },
    amount: MONEY,
    environment: { const: "production" },
    records_affected: { type: "integer", minimum: 0 },
    irreversible: { type: "boolean" },
  },
  required: [
    "target",
    "arguments",
    "effect",
    "changes",
    "labels",
    "amount",
    "environment",
    "records_affected",
    "irreversible",
  ],
  additionalProperties: false,
};

export const COMMIT_CANCEL_OUT = {
  type: "object",
  properties: {
    operation_id: { type: "string" },
    order_id: { type: "string" },
    previous_version: { type: "integer" },
    new_version: { type: "integer" },
    status: { const: "cancelled" },
    refund: MONEY,
    committed_at: { type: "string", format: "date-time" },
  },
  required: ["operation_id", "order_id", "previous_version", "new_version", "status", "refund", "committed_at"],
  additionalProperties: false,
};

export const OPERATION_STATUS_OUT = {
  type: "object",
  properties: {
    idempotency_key: { type: "string" },
    status: { enum: ["succeeded", "failed", "not_found"] },
    tool: { type: ["string", "null"] },
    operation_id: { type: ["string", "null"] },
    result: { type: ["object", "null"] },
    error: { type: ["object", "null"] },
    recorded_at: { type: ["string", "null"] },
  },
  required: ["idempotency_key", "status", "tool", "operation_id", "result", "error", "recorded_at"],
  additionalProperties: false,
};

export const LIST_ORDERS_OUT = {
  type: "object",
  properties: { account: ACCOUNT, orders: { type: "array", items: ORDER_SUMMARY } },
  required: ["account", "orders"],
  additionalProperties: false,
};
