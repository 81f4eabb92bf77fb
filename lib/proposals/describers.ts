import { z } from "zod";
import { formatMoney } from "./money";
import type { ProposalDraft } from "./draft";

// Guichet's own description of the writes that have no preview tool: who
// receives a message, how much money moves, how many records change, whether
// it can be undone. Keyed by the tool's name on its server, and applied only
// when the arguments have the shape this code understands; any other write
// gets the cautious generic description (every argument shown, irreversible).

export type DescribedCall = Omit<ProposalDraft, "argumentsSha256">;

const Money = z.object({ value_minor: z.number().int(), currency: z.string().regex(/^[A-Z]{3}$/) });

const SendEmail = z.strictObject({
  to: z.array(z.string()).min(1),
  subject: z.string(),
  body: z.string(),
  customer_id: z.string().optional(),
});

const RefundPayment = z.strictObject({
  payment_id: z.string(),
  amount: Money,
  reason: z.string().optional(),
});

const SuspendInvoiceDelivery = z.strictObject({
  customer_id: z.string(),
  invoice_ids: z.array(z.string()).min(1),
  resume_on: z.string().optional(),
});

/** A civil date (YYYY-MM-DD) as French readers write it, with no time zone to shift it: 2096-02-29 → 29/02/2096. */
function frenchDay(day: string): string {
  const [year, month, date] = day.split("-");
  return `${date}/${month}/${year}`;
}

const SuspendAllInvoiceDelivery = z.strictObject({ customer_id: z.string() });

const CancelJob = z.strictObject({ job_id: z.string() });

type Describer = (args: Record<string, unknown>) => DescribedCall | null;

const describers: Record<string, Describer> = {
  send_email(args) {
    const parsed = SendEmail.safeParse(args);
    if (!parsed.success) return null;
    const { to, subject, body, customer_id } = parsed.data;
    return {
      arguments: args,
      target: customer_id ? { type: "customer", id: customer_id, version: null } : null,
      effect: `Envoyer le courriel « ${subject} » à ${to.join(", ")}.`,
      changes: [
        { field: "to", label: "Destinataires", before: null, after: to },
        { field: "subject", label: "Objet", before: null, after: subject },
        { field: "body", label: "Message", before: null, after: body },
      ],
      recipients: to,
      amount: null,
      environment: "production",
      recordsAffected: 1,
      irreversible: true,
      action: "message",
      externalMessage: true,
    };
  },
  refund_payment(args) {
    const parsed = RefundPayment.safeParse(args);
    if (!parsed.success) return null;
    const { payment_id, amount, reason } = parsed.data;
    return {
      arguments: args,
      target: { type: "payment", id: payment_id, version: null },
      effect: `Rembourser ${formatMoney(amount)} sur le paiement ${payment_id}${reason?.trim() ? ` (motif : ${reason.trim()})` : ""}.`,
      changes: [
        { field: "refund", label: "Remboursement", before: null, after: amount },
        ...(reason !== undefined ? [{ field: "reason", label: "Motif", before: null, after: reason }] : []),
      ],
      recipients: null,
      amount,
      environment: "production",
      recordsAffected: 1,
      irreversible: true,
      action: "payment",
      externalMessage: false,
    };
  },
  suspend_invoice_delivery(args) {
    const parsed = SuspendInvoiceDelivery.safeParse(args);
    if (!parsed.success) return null;
    // The order of the invoices does not change the operation: one order, one hash.
    const invoices = [...new Set(parsed.data.invoice_ids)].sort();
    const until = parsed.data.resume_on ? ` jusqu'au ${frenchDay(parsed.data.resume_on)}` : "";
    return {
      arguments: { ...args, invoice_ids: invoices },
      target: { type: "customer", id: parsed.data.customer_id, version: null },
      effect: `Suspendre l'envoi de ${invoices.length} facture${invoices.length > 1 ? "s" : ""} du client ${parsed.data.customer_id}${until}.`,
      changes: invoices.map((id) => ({
        field: `invoices/${id}/delivery`,
        label: `Envoi de la facture ${id}`,
        before: null,
        after: `suspendu${until}`,
      })),
      recipients: null,
      amount: null,
      environment: "production",
      recordsAffected: invoices.length,
      irreversible: false,
      action: "update",
      externalMessage: false,
    };
  },
  // Long jobs: the service accepts the write at once and does it later. What the job
  // will touch is known only when it runs, so these stay as cautious as an unknown
  // write (one record as far as the policy can tell, not undoable) and say so.
  suspend_all_invoice_delivery(args) {
    const parsed = SuspendAllInvoiceDelivery.safeParse(args);
    if (!parsed.success) return null;
    const customer = parsed.data.customer_id;
    return {
      arguments: args,
      target: { type: "customer", id: customer, version: null },
      effect: `Suspendre l'envoi de toutes les factures du client ${customer} : le service accepte la demande puis la traite ; le nombre de factures n'est connu qu'à la fin.`,
      changes: [
        { field: "invoices/*/delivery", label: "Envoi de toutes les factures", before: null, after: "suspendu" },
      ],
      recipients: null,
      amount: null,
      environment: "production",
      recordsAffected: 1,
      irreversible: true,
      action: null,
      externalMessage: false,
    };
  },
  cancel_job(args) {
    const parsed = CancelJob.safeParse(args);
    if (!parsed.success) return null;
    const job = parsed.data.job_id;
    return {
      arguments: args,
      target: { type: "job", id: job, version: null },
      effect: `Annuler le traitement ${job} en cours chez le service ; s'il est déjà terminé, rien n'est défait.`,
      changes: [{ field: "job", label: "Traitement", before: null, after: "annulé" }],
      recipients: null,
      amount: null,
      environment: "production",
      recordsAffected: 1,
      irreversible: true,
      action: null,
      externalMessage: false,
    };
  },
};

/** Unknown to Guichet: show every argument, and assume the worst about undoing it. */
function generic(tool: string, args: Record<string, unknown>): DescribedCall {
  const fields = Object.keys(args).sort();
  return {
    arguments: args,
    target: null,
    effect: `Écriture par l'outil ${tool} avec ${fields.length ? `les valeurs de ${fields.join(", ")}` : "aucune valeur"} ; l'outil n'a pas d'aperçu, l'état actuel n'est donc pas montré.`,
    changes: fields.map((field) => ({ field, before: null, after: args[field] })),
    recipients: null,
    amount: null,
    environment: "production",
    recordsAffected: 1,
    irreversible: true,
    action: null,
    externalMessage: false,
  };
}

export function describeArguments(tool: string, args: Record<string, unknown>): DescribedCall {
  const describer = Object.prototype.hasOwnProperty.call(describers, tool) ? describers[tool] : undefined;
  return describer?.(args) ?? generic(tool, args);
}
