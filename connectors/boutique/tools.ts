import type { CallToolResult, Tool } from "@modelcontextprotocol/sdk/types.js";
import { compile, describeErrors } from "../acme-crm/validate";
import type { DemoAccount } from "./accounts";
import { orderNotFound, ShopError } from "./errors";
import * as S from "./schemas";
import type { IdempotentOutcome, Order, OrderStatus, ShopStore } from "./store";

// Boutique's tool catalog and dispatcher. Every tool acts for the account the
// access token names: there is no account argument, so an agent cannot ask for
// someone else's orders. The write follows CRM Acme's protocol, which Guichet
// derives its contract from: `preview_cancel_order` (a read) returns the
// proposal data, `commit_cancel_order` takes `expected_version` and an
// `idempotency_key`, and `get_operation_status` reads the outcome by key.

type JsonSchema = Record<string, unknown>;
type Annotations = NonNullable<Tool["annotations"]>;

const STATUS_LABELS: Record<OrderStatus, string> = {
  paid: "payée",
  shipped: "expédiée",
  delivered: "livrée",
  cancelled: "annulée",
};

/** « 42,50 € »: how the shop writes an amount to people. */
export function euros(m: { value_minor: number; currency: string }): string {
  const amount = (m.value_minor / 100).toFixed(2).replace(".", ",");
  return m.currency === "EUR" ? `${amount} €` : `${amount} ${m.currency}`;
}

export interface ToolContext {
  store: ShopStore;
  account: DemoAccount;
}

interface ToolDef {
  name: string;
  title: string;
  description: string;
  annotations: Annotations;
  inputSchema: JsonSchema;
  outputSchema: JsonSchema;
  write: boolean;
  run(ctx: ToolContext, args: unknown): object | IdempotentOutcome<object>;
}

const READ: Annotations = { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false };

function requireOrder(ctx: ToolContext, orderId: string): Order {
  const order = ctx.store.getOrder(ctx.account.id, orderId);
  if (!order) throw orderNotFound(orderId);
  return order;
}

function assertCancellable(order: Order): void {
  if (order.status !== "paid") {
    throw new ShopError(
      "ORDER_NOT_CANCELLABLE",
      `La commande ${order.order_id} est ${STATUS_LABELS[order.status]} : seule une commande payée et pas encore expédiée peut être annulée`,
      { field: "/order_id", details: { status: order.status } },
    );
  }
}

const TOOLS: ToolDef[] = [
  {
    name: "list_orders",
    title: "List my orders",
    description:
      "List the orders of the signed-in Boutique customer, newest first, optionally only those with one status. Amounts are in euro cents.",
    annotations: { title: "List my orders", ...READ },
    inputSchema: {
      type: "object",
      properties: { status: S.STATUS },
      additionalProperties: false,
    },
    outputSchema: S.LIST_ORDERS_OUT,
    write: false,
    run(ctx, args: { status?: OrderStatus }) {
      const orders = ctx.store.listOrders(ctx.account.id, args.status).map((o) => ({
        order_id: o.order_id,
        status: o.status,
        placed_at: o.placed_at,
        total: o.total,
        items_count: o.items.reduce((n, item) => n + item.quantity, 0),
        summary: o.items.map((item) => `${item.quantity} × ${item.label}`).join(", "),
      }));
      return { account: { email: ctx.account.email, name: ctx.account.name }, orders };
    },
  },
  {
    name: "get_order",
    title: "Get one of my orders",
    description: "Read one order of the signed-in customer: items, total, status, city and current version.",
    annotations: { title: "Get one of my orders", ...READ },
    inputSchema: {
      type: "object",
      properties: { order_id: S.ORDER_ID },
      required: ["order_id"],
      additionalProperties: false,
    },
    outputSchema: S.ORDER_DETAIL,
    write: false,
    run: (ctx, args: { order_id: string }) => requireOrder(ctx, args.order_id),
  },
  {
    name: "preview_cancel_order",
    title: "Preview cancelling an order",
    description:
      "Compute, without writing anything, what cancelling one of the customer's orders would do: the order and its current version, the status change and the refund. Use its result to ask for approval, then commit_cancel_order.",
    annotations: { title: "Preview cancelling an order", ...READ },
    inputSchema: {
      type: "object",
      properties: { order_id: S.ORDER_ID },
      required: ["order_id"],
      additionalProperties: false,
    },
    outputSchema: S.PREVIEW_CANCEL_OUT,
    write: false,
    run(ctx, args: { order_id: string }) {
      const order = requireOrder(ctx, args.order_id);
      assertCancellable(order);
      return {
        target: { type: "order", id: order.order_id, version: order.version },
        arguments: { order_id: order.order_id },
        effect: `Annuler la commande ${order.order_id} du ${order.placed_at.slice(0, 10)} (${order.items
          .map((item) => item.label)
          .join(", ")}) et rembourser ${euros(order.total)} à ${ctx.account.name}.`,
        changes: [{ field: "status", before: order.status, after: "cancelled" }],
        labels: { status: "Statut de la commande" },
        amount: order.total,
        environment: "production",
        records_affected: 1,
        irreversible: true,
      };
    },
  },
  {
    name: "commit_cancel_order",
    title: "Cancel an order",
    description:
      "Cancel one of the customer's paid orders and refund it, if the order is still at expected_version (else VERSION_CONFLICT, nothing written). Irreversible. Idempotent by idempotency_key.",
    annotations: {
      title: "Cancel an order",
      readOnlyHint: false,
      destructiveHint: true,
      idempotentHint: true,
      openWorldHint: false,
    },
    inputSchema: {
      type: "object",
      properties: {
        order_id: S.ORDER_ID,
        expected_version: { type: "integer", minimum: 1 },
        idempotency_key: S.IDEMPOTENCY_KEY,
      },
      required: ["order_id", "expected_version", "idempotency_key"],
      additionalProperties: false,
    },
    outputSchema: S.COMMIT_CANCEL_OUT,
    write: true,
    run(ctx, args: { order_id: string; expected_version: number; idempotency_key: string }) {
      const canonical = { order_id: args.order_id, expected_version: args.expected_version };
      return ctx.store.runIdempotent(
        ctx.account.id,
        "commit_cancel_order",
        args.idempotency_key,
        canonical,
        (operationId, now) => {
          const order = requireOrder(ctx, args.order_id);
          if (order.version !== args.expected_version) {
            throw new ShopError(
              "VERSION_CONFLICT",
              `La commande ${order.order_id} est à la version ${order.version}, pas ${args.expected_version} : relisez-la et faites une nouvelle proposition`,
              { field: "/expected_version", details: { current_version: order.version } },
            );
          }
          assertCancellable(order);
          const updated = ctx.store.db
            .prepare(
              `UPDATE orders SET status = 'cancelled', version = version + 1, updated_at = ?
               WHERE order_id = ? AND account_id = ? AND version = ?`,
            )
            .run(now, order.order_id, ctx.account.id, order.version);
          if (updated.changes !== 1)
            throw new ShopError("INTERNAL_ERROR", "Modification concurrente", { retryable: true });
          return {
            operation_id: operationId,
            order_id: order.order_id,
            previous_version: order.version,
            new_version: order.version + 1,
            status: "cancelled" as const,
            refund: order.total,
            committed_at: now,
          };
        },
      );
    },
  },
  {
    name: "get_operation_status",
    title: "Get operation status",
    description:
      "Outcome recorded for an idempotency key of one of your writes: succeeded (with the stored result), failed (with the stored error) or not_found (no write happened under that key).",
    annotations: { title: "Get operation status", ...READ },
    inputSchema: {
      type: "object",
      properties: { idempotency_key: S.IDEMPOTENCY_KEY },
      required: ["idempotency_key"],
      additionalProperties: false,
    },
    outputSchema: S.OPERATION_STATUS_OUT,
    write: false,
    run(ctx, args: { idempotency_key: string }) {
      const op = ctx.store.getOperation(ctx.account.id, args.idempotency_key);
      if (!op) {
        return {
          idempotency_key: args.idempotency_key,
          status: "not_found",
          tool: null,
          operation_id: null,
          result: null,
          error: null,
          recorded_at: null,
        };
      }
      return {
        idempotency_key: op.idempotency_key,
        status: op.status,
        tool: op.tool,
        operation_id: op.operation_id,
        result: op.result,
        error: op.error,
        recorded_at: op.created_at,
      };
    },
  },
];

export const TOOL_NAMES = TOOLS.map((t) => t.name);

export function listTools(): Tool[] {
  return TOOLS.map((t) => ({
    name: t.name,
    title: t.title,
    description: t.description,
    inputSchema: t.inputSchema as Tool["inputSchema"],
    outputSchema: t.outputSchema as Tool["outputSchema"],
    annotations: t.annotations,
    _meta: {
      "test.boutique/contract": {
        effect: t.write ? "write" : "read",
        retry: t.write ? "idempotent" : "safe",
        idempotency_key_field: t.write ? "idempotency_key" : null,
        status_tool: t.write ? "get_operation_status" : null,
        preview_tool: t.name === "commit_cancel_order" ? "preview_cancel_order" : null,
        irreversible: t.name === "commit_cancel_order",
      },
    },
  }));
}

function success(structured: Record<string, unknown>, replayed: boolean): CallToolResult {
  return {
    content: [{ type: "text", text: JSON.stringify(structured) }],
    structuredContent: structured,
    ...(replayed ? { _meta: { "test.boutique/replayed": true } } : {}),
  };
}

/** An error carries its typed body in a text block and no structuredContent (which describes successes). */
function failure(err: ShopError): CallToolResult {
  return { isError: true, content: [{ type: "text", text: JSON.stringify({ error: err.toBody() }) }] };
}

export interface DispatchOutcome {
  result: CallToolResult;
  /** A write created a new record (not a replay, not a refusal): what the commit counters count. */
  wrote: boolean;
}

/** null for an unknown tool name (a protocol error, not a tool result). */
export function dispatch(ctx: ToolContext, name: string, args: unknown): DispatchOutcome | null {
  const def = TOOLS.find((t) => t.name === name);
  if (!def) return null;
  try {
    const validate = compile(def.inputSchema);
    if (!validate(args)) {
      const { field, message } = describeErrors(validate.errors ?? []);
      throw new ShopError("INVALID_ARGUMENTS", `Arguments invalides en ${field || "/"} : ${message}`, { field });
    }
    const out = def.run(ctx, args);
    const { result, replayed } = def.write ? (out as IdempotentOutcome<object>) : { result: out, replayed: false };
    const check = compile(def.outputSchema);
    if (!check(result)) {
      console.error(`[boutique] ${name} produced an output that does not match its schema`, check.errors);
      throw new ShopError("INTERNAL_ERROR", "The shop produced an invalid result", { retryable: true });
    }
    return { result: success(result as Record<string, unknown>, replayed), wrote: def.write && !replayed };
  } catch (e) {
    if (e instanceof ShopError) return { result: failure(e), wrote: false };
    console.error(`[boutique] ${name} failed:`, e);
    return {
      result: failure(new ShopError("INTERNAL_ERROR", "Internal error in the shop", { retryable: true })),
      wrote: false,
    };
  }
}
