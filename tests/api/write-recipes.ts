import { randomBytes } from "node:crypto";
import { expect } from "vitest";
import { callTool } from "./dispatch-fixtures";
import { crmFaults, crmState } from "./helpers";
import { callCrmDirectly, previewAddress, touchCustomer, type CrmSetup } from "./proposals-helpers";

// How each write tool of CRM Acme is put through the write matrix and the
// declared-semantics check: how to propose it, what another client sends, how
// its target goes stale, and what its effect looks like in CRM Acme's store.
// A write tool of the catalog without a recipe here fails both suites.

export type CrmStore = Record<string, Array<Record<string, any>>>;

export interface WriteRecipe {
  /** Puts a proposal for this tool in the run (a preview, or the candidate arguments); returns its id. */
  propose(setup: CrmSetup, run: string): Promise<string>;
  /** What another client of the service sends under Guichet's key, with other arguments. */
  otherArguments: Record<string, unknown>;
  /**
   * The target changes at the service between the approval and the commit. A versioned target is `refused`:
   * the change makes the approved proposal stale, and Guichet answers the tool error code named (with the
   * service's own code in the message when it is not one of the stable codes). A target without a version is
   * `reported`: the write commits once, as approved, and its result says what it found — `check` asserts it.
   */
  stale:
    | { refused: () => Promise<{ code: string; mentions?: string }> }
    | {
        reported: {
          because: string;
          change: () => Promise<void>;
          check: (result: Record<string, any>, state: CrmStore) => Promise<void> | void;
        };
      };
  /** This tool's visible effect in CRM Acme's store: unchanged means nothing was written. */
  effects(state: CrmStore): unknown;
}

async function proposeWith(setup: CrmSetup, run: string, tool: string, args: Record<string, unknown>): Promise<string> {
  const envelope = await callTool(setup.tenant, run, setup.crm.key(tool), args);
  if (envelope.error?.code !== "APPROVAL_REQUIRED") throw new Error(`${tool}: ${JSON.stringify(envelope)}`);
  return envelope.error.proposal_id as string;
}

export const recipes: Record<string, WriteRecipe> = {
  commit_address_change: {
    async propose(setup, run) {
      const preview = await previewAddress(setup, run, "ADDR-2");
      return preview.evidence.proposal.id as string;
    },
    otherArguments: {
      customer_id: "C-1842",
      destination: { kind: "saved", address_id: "ADDR-3" },
      expected_version: 17,
    },
    stale: {
      refused: async () => {
        await touchCustomer("C-1842");
        return { code: "VERSION_CONFLICT" };
      },
    },
    effects: (state) => state.customers.find((c) => c.customer_id === "C-1842")!.shipping_address,
  },
  send_email: {
    propose: (setup, run) =>
      proposeWith(setup, run, "send_email", {
        to: ["camille.martin@example.com"],
        subject: "Votre commande",
        body: "Bonjour, votre commande est partie.",
      }),
    otherArguments: { to: ["autre@example.com"], subject: "Autre", body: "Autre message." },
    stale: {
      reported: {
        because: "an e-mail has no record version: it is sent as approved or not at all",
        // Another client of the service writes to the same customer in between.
        change: async () => {
          const other = await callCrmDirectly("send_email", {
            to: ["camille.martin@example.com"],
            subject: "Autre message",
            body: "Envoyé par un autre client.",
            idempotency_key: `other-${randomBytes(6).toString("hex")}`,
          });
          if (other.isError) throw new Error(`other e-mail: ${JSON.stringify(other.structuredContent)}`);
        },
        check: (_result, state) => {
          expect(state.outbox.map((m) => m.subject)).toEqual(["Autre message", "Votre commande"]);
          expect(state.outbox[1]).toMatchObject({
            recipients: ["camille.martin@example.com"],
            body: "Bonjour, votre commande est partie.",
          });
        },
      },
    },
    effects: (state) => state.outbox.length,
  },
  refund_payment: {
    propose: (setup, run) =>
      proposeWith(setup, run, "refund_payment", {
        payment_id: "PAY-9002",
        amount: { value_minor: 500, currency: "EUR" },
        reason: "Geste commercial",
      }),
    otherArguments: { payment_id: "PAY-9002", amount: { value_minor: 700, currency: "EUR" } },
    stale: {
      refused: async () => {
        // Someone else refunded the whole payment since the approval: what was approved no longer fits.
        const drained = await callCrmDirectly("refund_payment", {
          payment_id: "PAY-9002",
          amount: { value_minor: 4_990, currency: "EUR" },
          idempotency_key: `other-${randomBytes(6).toString("hex")}`,
        });
        if (drained.isError) throw new Error(`drain: ${JSON.stringify(drained.structuredContent)}`);
        // Not one of the stable tool error codes: an upstream refusal that names the service's code.
        return { code: "UPSTREAM_ERROR", mentions: "AMOUNT_EXCEEDS_REMAINING" };
      },
    },
    effects: (state) => state.refunds.filter((r) => r.payment_id === "PAY-9002").length,
  },
  suspend_invoice_delivery: {
    propose: (setup, run) =>
      proposeWith(setup, run, "suspend_invoice_delivery", {
        customer_id: "C-2001",
        invoice_ids: ["INV-2001-001", "INV-2001-002"],
      }),
    otherArguments: { customer_id: "C-2001", invoice_ids: ["INV-2001-003"] },
    stale: {
      reported: {
        because:
          "an invoice has no record version: suspending one already suspended is reported in the result (already_suspended), not refused",
        change: () => suspendDirectly("C-2001", ["INV-2001-001"]),
        check: (result, state) => {
          expect(result).toMatchObject({ suspended_count: 1, already_suspended: ["INV-2001-001"] });
          expect(state.invoices.filter((i) => i.invoice_id === "INV-2001-002" && i.delivery_suspended)).toHaveLength(1);
        },
      },
    },
    effects: (state) =>
      state.invoices
        .filter((i) => i.delivery_suspended)
        .map((i) => i.invoice_id)
        .sort(),
  },
  suspend_all_invoice_delivery: {
    propose: (setup, run) => proposeWith(setup, run, "suspend_all_invoice_delivery", { customer_id: "C-2001" }),
    otherArguments: { customer_id: "C-1842" },
    stale: {
      reported: {
        because:
          "accepted as a job of the whole customer: there is no record version, invoices already suspended are counted, not refused",
        change: () => suspendDirectly("C-2001", ["INV-2001-001"]),
        async check(result, state) {
          expect(result).toMatchObject({ customer_id: "C-2001", status: "running" });
          const pending = state.invoices.filter((i) => i.customer_id === "C-2001" && !i.delivery_suspended).length;
          expect(pending).toBeGreaterThan(0);
          // The job counts only what it suspended: the invoice another client suspended first is not in it.
          expect(await finishedJob(result.job_id as string)).toMatchObject({
            status: "succeeded",
            result: { suspended_count: pending },
          });
        },
      },
    },
    effects: (state) => state.jobs.map((job) => `${job.customer_id}:${job.status}`),
  },
  cancel_job: {
    async propose(setup, run) {
      const job = await startJob();
      spareJob = await startJob();
      return proposeWith(setup, run, "cancel_job", { job_id: job });
    },
    // Another running job, started with the one the proposal cancels.
    get otherArguments() {
      return { job_id: spareJob };
    },
    stale: {
      reported: {
        because:
          "a job has no record version: cancelling one that already finished is reported (already_finished), not refused",
        // Another client of the service cancels the job first.
        change: async () => {
          const job = (await crmState()).jobs.find(
            (j: Record<string, any>) => j.status === "running" && j.job_id !== spareJob,
          )!;
          const other = await callCrmDirectly("cancel_job", {
            job_id: job.job_id,
            idempotency_key: `other-${randomBytes(6).toString("hex")}`,
          });
          if (other.isError) throw new Error(`other cancel: ${JSON.stringify(other.structuredContent)}`);
        },
        check: (result) => expect(result).toMatchObject({ outcome: "already_finished", status: "cancelled" }),
      },
    },
    effects: (state) => state.jobs.map((job) => `${job.job_id}:${job.status}`),
  },
};

/** Another client of CRM Acme suspends these invoices under its own key. */
async function suspendDirectly(customerId: string, invoiceIds: string[]): Promise<void> {
  const other = await callCrmDirectly("suspend_invoice_delivery", {
    customer_id: customerId,
    invoice_ids: invoiceIds,
    idempotency_key: `other-${randomBytes(6).toString("hex")}`,
  });
  if (other.isError) throw new Error(`other suspension: ${JSON.stringify(other.structuredContent)}`);
}

/** Polls CRM Acme's job status until the job reaches a final state (jobs finish when read, once their time passed). */
export async function finishedJob(jobId: string): Promise<Record<string, any>> {
  for (let attempt = 0; attempt < 100; attempt++) {
    const status = (await callCrmDirectly("get_job_status", { job_id: jobId })).structuredContent as Record<
      string,
      any
    >;
    if (status.status !== "running") return status;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error(`job ${jobId} still running`);
}

/** The second job a cancel_job recipe started, for another client's cancel under Guichet's key. */
let spareJob = "";

/** A job of CRM Acme's long write, started by another client of the service and kept running. */
export async function startJob(): Promise<string> {
  await crmFaults({ hold_jobs: true });
  const started = await callCrmDirectly("suspend_all_invoice_delivery", {
    customer_id: "C-2001",
    idempotency_key: `job-${randomBytes(6).toString("hex")}`,
  });
  if (started.isError) throw new Error(`job: ${JSON.stringify(started.content)}`);
  return (started.structuredContent as { job_id: string }).job_id;
}

/** The write tools whose stale-target case the write matrix runs. */
export function staleTargetCases(): Set<string> {
  return new Set(Object.entries(recipes).flatMap(([tool, recipe]) => (recipe.stale ? [tool] : [])));
}
