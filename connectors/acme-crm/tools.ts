import type { CallToolResult, Tool } from "@modelcontextprotocol/sdk/types.js";
import { commitAddressChange, previewAddressChange, type CommitAddressArgs, type PreviewAddressArgs } from "./address";
import { notFound, ToolError } from "./errors";
import { cancelJob, jobStatus, suspendAllInvoiceDelivery, type CancelJobArgs, type SuspendAllArgs } from "./jobs";
import type { IdempotentOutcome } from "./idempotency";
import * as S from "./schemas";
import type { Store } from "./store";
import { assertValid, outputProblem } from "./validate";
import {
  refundPayment,
  sendEmail,
  suspendInvoiceDelivery,
  type RefundArgs,
  type SendEmailArgs,
  type SuspendArgs,
} from "./writes";

// The tool catalog of CRM Acme and its dispatcher: exact name lookup → input
// validation (server side, strict) → business logic → output self-check.

type Annotations = NonNullable<Tool["annotations"]>;

interface ToolDef {
  name: string;
  title: string;
  description: string;
  annotations: Annotations;
  inputSchema: S.JsonSchema;
  outputSchema: S.JsonSchema;
  /** Write tools take an idempotency key and run under runIdempotent. */
  write: boolean;
  irreversible: boolean;
  // Method syntax on purpose: each tool narrows `args` to what its validated schema guarantees.
  run(store: Store, args: unknown): IdempotentOutcome<object> | object;
}

const READ: Annotations = { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false };
const write = (destructive: boolean, openWorld: boolean): Annotations => ({
  readOnlyHint: false,
  destructiveHint: destructive,
  idempotentHint: true,
  openWorldHint: openWorld,
});

function decodeCursor(cursor: string, customerId: string) {
  try {
    const v = JSON.parse(Buffer.from(cursor, "base64url").toString("utf8"));
    if (v && v.c === customerId && typeof v.t === "string" && typeof v.o === "string") {
      return { created_at: v.t as string, order_id: v.o as string };
    }
  } catch {
    /* fall through */
  }
  throw new ToolError(
    "INVALID_ARGUMENTS",
    "Arguments invalides en /cursor : ce n’est pas un next_cursor des commandes de ce client",
    {
      field: "/cursor",
    },
  );
}

function buildTools(variant: S.SchemaVariant): ToolDef[] {
  return [
    {
      name: "get_customer",
      title: "Get customer",
      description:
        variant !== 1
          ? "Read one customer: identity, current version, shipping address and saved addresses. Optionally include the number of orders."
          : "Read one customer: identity, current version, shipping address and saved addresses.",
      annotations: { title: "Get customer", ...READ },
      inputSchema: S.getCustomerIn(variant),
      outputSchema: S.getCustomerOut(variant),
      write: false,
      irreversible: false,
      run(store: Store, args: { customer_id: string; include?: string[] }) {
        const c = store.getCustomer(args.customer_id);
        if (!c) throw notFound("Client", args.customer_id, "/customer_id");
        if (!args.include?.includes("orders_count")) return c;
        const row = store.db.prepare(`SELECT count(*) AS n FROM orders WHERE customer_id = ?`).get(c.customer_id) as {
          n: number;
        };
        return { ...c, orders_count: row.n };
      },
    },
    {
      name: "list_orders",
      title: "List orders",
      description:
        "List a customer's orders, newest first, one bounded page at a time. Pass next_cursor back as cursor for the next page.",
      annotations: { title: "List orders", ...READ },
      inputSchema: S.listOrdersIn,
      outputSchema: S.listOrdersOut,
      write: false,
      irreversible: false,
      run(store: Store, args: { customer_id: string; limit?: number; cursor?: string }) {
        if (!store.getCustomer(args.customer_id)) throw notFound("Client", args.customer_id, "/customer_id");
        const limit = args.limit ?? 10;
        const after = args.cursor === undefined ? null : decodeCursor(args.cursor, args.customer_id);
        const rows = store.listOrders(args.customer_id, limit + 1, after);
        const orders = rows.slice(0, limit);
        const last = orders[orders.length - 1];
        const next_cursor =
          rows.length > limit && last
            ? Buffer.from(JSON.stringify({ c: args.customer_id, t: last.created_at, o: last.order_id })).toString(
                "base64url",
              )
            : null;
        return { orders, next_cursor };
      },
    },
    {
      name: "preview_address_change",
      title: "Preview a shipping address change",
      description:
        "Compute, without writing anything, what replacing a customer's shipping address would do: the canonical arguments, the target and its current version, the before/after change. Use its result to ask for approval, then commit_address_change.",
      annotations: { title: "Preview a shipping address change", ...READ },
      inputSchema: S.previewAddressIn,
      outputSchema: S.previewAddressOut,
      write: false,
      irreversible: false,
      run: (store: Store, args: PreviewAddressArgs) => previewAddressChange(store, args),
    },
    {
      name: "commit_address_change",
      title: "Commit a shipping address change",
      description:
        "Replace a customer's shipping address if the customer is still at expected_version (else VERSION_CONFLICT, nothing written). Idempotent by idempotency_key.",
      annotations: { title: "Commit a shipping address change", ...write(false, false) },
      inputSchema: S.commitAddressIn,
      outputSchema: S.commitAddressOut,
      write: true,
      irreversible: false,
      run: (store: Store, args: CommitAddressArgs) => commitAddressChange(store, args),
    },
    {
      name: "get_operation_status",
      title: "Get operation status",
      description:
        "Outcome recorded for an idempotency key of a write: succeeded (with the stored result), failed (with the stored error) or not_found (no write happened under that key).",
      annotations: { title: "Get operation status", ...READ },
      inputSchema: S.operationStatusIn,
      outputSchema: S.operationStatusOut,
      write: false,
      irreversible: false,
      run(store: Store, args: { idempotency_key: string }) {
        const op = store.getOperation(args.idempotency_key);
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
    {
      name: "send_email",
      title: "Send an e-mail",
      description:
        "Queue an e-mail to up to 10 recipients (recorded in the service outbox). Irreversible once queued. Idempotent by idempotency_key.",
      annotations: { title: "Send an e-mail", ...write(true, true) },
      inputSchema: S.sendEmailIn,
      outputSchema: S.sendEmailOut,
      write: true,
      irreversible: true,
      run: (store: Store, args: SendEmailArgs) => sendEmail(store, args),
    },
    {
      name: "refund_payment",
      title: "Refund a payment",
      description:
        "Refund part or all of a payment, amount in minor units + currency of the payment; refused above the remaining refundable amount. Irreversible. Idempotent by idempotency_key.",
      annotations: { title: "Refund a payment", ...write(true, true) },
      inputSchema: S.refundPaymentIn,
      outputSchema: S.refundPaymentOut,
      write: true,
      irreversible: true,
      run: (store: Store, args: RefundArgs) => refundPayment(store, args),
    },
    {
      name: "suspend_invoice_delivery",
      title: "Suspend invoice delivery (bulk)",
      description:
        "Stop sending the given invoices (1 to 500) of one customer. All must belong to the customer or nothing is changed. Idempotent by idempotency_key.",
      annotations: { title: "Suspend invoice delivery (bulk)", ...write(false, false) },
      inputSchema: S.suspendInvoicesIn,
      outputSchema: S.suspendInvoicesOut,
      write: true,
      irreversible: false,
      run: (store: Store, args: SuspendArgs) => suspendInvoiceDelivery(store, args),
    },
    {
      name: "suspend_all_invoice_delivery",
      title: "Suspend delivery of all invoices (long job)",
      description:
        "Stop sending every invoice of one customer. Accepted at once as a job that finishes later: the answer has status running and a job_id to poll with get_job_status. Idempotent by idempotency_key.",
      annotations: { title: "Suspend delivery of all invoices (long job)", ...write(false, false) },
      inputSchema: S.suspendAllInvoicesIn,
      outputSchema: S.suspendAllInvoicesOut,
      write: true,
      irreversible: false,
      run: (store: Store, args: SuspendAllArgs) => suspendAllInvoiceDelivery(store, args),
    },
    {
      name: "get_job_status",
      title: "Get job status",
      description: "The state of a long job: running, succeeded (with its result), failed or cancelled.",
      annotations: { title: "Get job status", ...READ },
      inputSchema: S.jobStatusIn,
      outputSchema: S.jobStatusOut,
      write: false,
      irreversible: false,
      run: (store: Store, args: { job_id: string }) => jobStatus(store, args.job_id, store.holdJobs),
    },
    {
      name: "cancel_job",
      title: "Cancel a job",
      description:
        "Stop a running job before it does its work; a job that already finished is reported as such and left unchanged. Idempotent by idempotency_key.",
      annotations: { title: "Cancel a job", ...write(false, false) },
      inputSchema: S.cancelJobIn,
      outputSchema: S.cancelJobOut,
      write: true,
      irreversible: false,
      run: (store: Store, args: CancelJobArgs) => cancelJob(store, args, store.holdJobs),
    },
  ];
}

const CATALOG: Record<S.SchemaVariant, ToolDef[]> = { 1: buildTools(1), 2: buildTools(2), 3: buildTools(3) };

export const TOOL_NAMES = CATALOG[1].map((t) => t.name);
export const WRITE_TOOL_NAMES: ReadonlySet<string> = new Set(CATALOG[1].filter((t) => t.write).map((t) => t.name));

export function listTools(variant: S.SchemaVariant): Tool[] {
  return CATALOG[variant].map((t) => ({
    name: t.name,
    title: t.title,
    description: t.description,
    inputSchema: t.inputSchema as Tool["inputSchema"],
    outputSchema: t.outputSchema as Tool["outputSchema"],
    annotations: t.annotations,
    _meta: {
      "com.acme.crm/contract": {
        effect: t.write ? "write" : "read",
        retry: t.write ? "idempotent" : "safe",
        idempotency_key_field: t.write ? "idempotency_key" : null,
        status_tool: t.write ? "get_operation_status" : null,
        preview_tool: t.name === "commit_address_change" ? "preview_address_change" : null,
        irreversible: t.irreversible,
      },
    },
  }));
}

export function toolSuccess(structured: Record<string, unknown>, replayed = false): CallToolResult {
  return {
    content: [{ type: "text", text: JSON.stringify(structured) }],
    structuredContent: structured,
    ...(replayed ? { _meta: { "com.acme.crm/replayed": true } } : {}),
  };
}

/**
 * An error result carries its typed body as JSON in a text block and no
 * structuredContent: structuredContent must match the tool's outputSchema, which
 * describes successes only, and MCP clients (the official SDK among them) reject
 * a result whose structuredContent does not.
 */
export function toolFailure(err: ToolError): CallToolResult {
  return { isError: true, content: [{ type: "text", text: JSON.stringify({ error: err.toBody() }) }] };
}

export interface DispatchOutcome {
  result: CallToolResult;
  /** A write transaction committed (success, replay or recorded refusal). */
  committed: boolean;
  write: boolean;
}

/** Returns null for an unknown tool name (a protocol error, not a tool result). */
export function dispatch(store: Store, variant: S.SchemaVariant, name: string, args: unknown): DispatchOutcome | null {
  const def = CATALOG[variant].find((t) => t.name === name);
  if (!def) return null;
  let reachedWrite = false;
  try {
    assertValid(def.inputSchema, args);
    reachedWrite = def.write;
    const out = def.run(store, args);
    const { result, replayed } = def.write ? (out as IdempotentOutcome<object>) : { result: out, replayed: false };
    const problem = outputProblem(def.outputSchema, result);
    if (problem) {
      console.error(`[acme-crm] ${name} produced an output that does not match its schema: ${problem}`);
      throw new ToolError("INTERNAL_ERROR", "The service produced an invalid result", { retryable: true });
    }
    return { result: toolSuccess(result as Record<string, unknown>, replayed), committed: def.write, write: def.write };
  } catch (e) {
    if (e instanceof ToolError) {
      const recorded = reachedWrite && e.code !== "INTERNAL_ERROR" && e.code !== "IDEMPOTENCY_KEY_REUSED";
      return { result: toolFailure(e), committed: recorded, write: def.write };
    }
    console.error(`[acme-crm] ${name} failed:`, e);
    return {
      result: toolFailure(new ToolError("INTERNAL_ERROR", "Internal error in the CRM service", { retryable: true })),
      committed: false,
      write: def.write,
    };
  }
}
