import { notFound, ToolError } from "./errors";
import { assertCivilDateAfter } from "./validate";
import { newId, runIdempotent } from "./idempotency";
import type { Money, Store } from "./store";

// The other write tools of the service. All go through runIdempotent: the
// idempotency key and the result are stored in the write's transaction.

export interface RefundArgs {
  payment_id: string;
  amount: Money;
  reason?: string;
  idempotency_key: string;
}
export interface SendEmailArgs {
  to: string[];
  subject: string;
  body: string;
  customer_id?: string;
  idempotency_key: string;
}
export interface SuspendArgs {
  customer_id: string;
  invoice_ids: string[];
  resume_on?: string;
  idempotency_key: string;
}

export function refundPayment(store: Store, args: RefundArgs) {
  const reason = args.reason?.trim();
  const canonical = { payment_id: args.payment_id, amount: args.amount, reason };
  return runIdempotent(store, "refund_payment", args.idempotency_key, canonical, (operationId, now) => {
    const payment = store.getPayment(args.payment_id);
    if (!payment) throw notFound("Paiement", args.payment_id, "/payment_id");
    if (payment.amount.currency !== args.amount.currency) {
      throw new ToolError(
        "CURRENCY_MISMATCH",
        `Le paiement ${payment.payment_id} est en ${payment.amount.currency}, pas en ${args.amount.currency}`,
        { field: "/amount/currency" },
      );
    }
    const remaining = payment.amount.value_minor - payment.refunded_total.value_minor;
    if (args.amount.value_minor > remaining) {
      throw new ToolError(
        "AMOUNT_EXCEEDS_REMAINING",
        `Le remboursement de ${args.amount.value_minor} dépasse les ${remaining} ${payment.amount.currency} (en centimes) encore remboursables sur ${payment.payment_id}`,
        {
          field: "/amount/value_minor",
          details: { remaining: { value_minor: remaining, currency: payment.amount.currency } },
        },
      );
    }
    const refundId = newId("rf_");
    store.db
      .prepare(
        `INSERT INTO refunds (refund_id, payment_id, amount_minor, currency, reason, operation_id, created_at)
         VALUES (?, ?, ?, ?, ?, ?, ?)`,
      )
      .run(
        refundId,
        payment.payment_id,
        args.amount.value_minor,
        args.amount.currency,
        reason ?? null,
        operationId,
        now,
      );
    store.db
      .prepare(`UPDATE payments SET refunded_minor = refunded_minor + ? WHERE payment_id = ?`)
      .run(args.amount.value_minor, payment.payment_id);
    const refunded = payment.refunded_total.value_minor + args.amount.value_minor;
    return {
      operation_id: operationId,
      refund_id: refundId,
      payment_id: payment.payment_id,
      amount: { value_minor: args.amount.value_minor, currency: args.amount.currency },
      refunded_total: { value_minor: refunded, currency: payment.amount.currency },
      remaining_refundable: { value_minor: payment.amount.value_minor - refunded, currency: payment.amount.currency },
      committed_at: now,
    };
  });
}

export function sendEmail(store: Store, args: SendEmailArgs) {
  const canonical = { to: args.to, subject: args.subject, body: args.body, customer_id: args.customer_id };
  return runIdempotent(store, "send_email", args.idempotency_key, canonical, (operationId, now) => {
    if (args.customer_id !== undefined && !store.getCustomer(args.customer_id)) {
      throw notFound("Client", args.customer_id, "/customer_id");
    }
    const messageId = newId("msg_");
    store.db
      .prepare(
        `INSERT INTO outbox (message_id, operation_id, customer_id, recipients, subject, body, queued_at)
         VALUES (?, ?, ?, ?, ?, ?, ?)`,
      )
      .run(messageId, operationId, args.customer_id ?? null, JSON.stringify(args.to), args.subject, args.body, now);
    return { operation_id: operationId, message_id: messageId, recipients: [...args.to], queued_at: now };
  });
}

export function suspendInvoiceDelivery(store: Store, args: SuspendArgs) {
  // The order of the ids does not change the operation: sort them.
  const ids = [...args.invoice_ids].sort();
  const resumeOn = args.resume_on ?? null;
  const canonical = { customer_id: args.customer_id, invoice_ids: ids, ...(resumeOn ? { resume_on: resumeOn } : {}) };
  return runIdempotent(store, "suspend_invoice_delivery", args.idempotency_key, canonical, (operationId, now) => {
    if (!store.getCustomer(args.customer_id)) throw notFound("Client", args.customer_id, "/customer_id");
    if (resumeOn) assertCivilDateAfter(resumeOn, now.slice(0, 10), "/resume_on");
    const already: string[] = [];
    const toSuspend: string[] = [];
    args.invoice_ids.forEach((id, i) => {
      const inv = store.getInvoice(id);
      if (!inv || inv.customer_id !== args.customer_id) {
        throw new ToolError("NOT_FOUND", `Le client ${args.customer_id} n’a pas de facture ${id}`, {
          field: `/invoice_ids/${i}`,
        });
      }
      (inv.delivery_suspended ? already : toSuspend).push(id);
    });
    const upd = store.db.prepare(
      `UPDATE invoices SET delivery_suspended = 1, suspended_at = ?, suspended_by = ?, resumes_on = ? WHERE invoice_id = ?`,
    );
    for (const id of toSuspend) upd.run(now, operationId, resumeOn, id);
    return {
      operation_id: operationId,
      customer_id: args.customer_id,
      suspended_count: toSuspend.length,
      already_suspended: already.sort(),
      invoice_ids: ids,
      resume_on: resumeOn,
      committed_at: now,
    };
  });
}
