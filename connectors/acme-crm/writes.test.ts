import { describe, expect, it } from "vitest";
import { call, fails, key, ok, setUpTestCrm, state } from "./test-helpers";

const crm = setUpTestCrm();

const payment = async (id: string) => (await state(crm.t.crm.baseUrl)).payments.find((p: any) => p.payment_id === id);

describe("refund_payment", () => {
  it("refunds part of PAY-9001 (12 500 EUR minor, 2 500 already refunded)", async () => {
    expect(await payment("PAY-9001")).toMatchObject({
      amount: { value_minor: 12500, currency: "EUR" },
      refunded_total: { value_minor: 2500, currency: "EUR" },
    });
    const r = await ok(crm.client, "refund_payment", {
      payment_id: "PAY-9001",
      amount: { value_minor: 4000, currency: "EUR" },
      reason: "Colis endommagé",
      idempotency_key: key("refund"),
    });
    expect(crm.checkOutput("refund_payment", r)).toBeNull();
    expect(r).toMatchObject({
      payment_id: "PAY-9001",
      amount: { value_minor: 4000, currency: "EUR" },
      refunded_total: { value_minor: 6500, currency: "EUR" },
      remaining_refundable: { value_minor: 6000, currency: "EUR" },
    });
    const s = await state(crm.t.crm.baseUrl);
    expect(s.refunds.filter((x: any) => x.operation_id === r.operation_id)).toEqual([
      expect.objectContaining({ refund_id: r.refund_id, amount: { value_minor: 4000, currency: "EUR" } }),
    ]);
  });

  it("refuses more than the remaining refundable amount, and writes nothing", async () => {
    const before = await state(crm.t.crm.baseUrl);
    const err = await fails(crm.client, "refund_payment", {
      payment_id: "PAY-9001",
      amount: { value_minor: 10001, currency: "EUR" },
      idempotency_key: key("over"),
    });
    expect(err).toMatchObject({
      code: "AMOUNT_EXCEEDS_REMAINING",
      field: "/amount/value_minor",
      details: { remaining: { value_minor: 10000, currency: "EUR" } },
    });
    const after = await state(crm.t.crm.baseUrl);
    expect(after.payments).toEqual(before.payments);
    expect(after.refunds).toEqual(before.refunds);
    // Exactly the remaining amount is fine.
    await ok(crm.client, "refund_payment", {
      payment_id: "PAY-9001",
      amount: { value_minor: 10000, currency: "EUR" },
      idempotency_key: key("exact"),
    });
    expect((await payment("PAY-9001")).refunded_total.value_minor).toBe(12500);
  });

  it("refuses another currency and an unknown payment", async () => {
    expect(
      await fails(crm.client, "refund_payment", {
        payment_id: "PAY-9001",
        amount: { value_minor: 100, currency: "USD" },
        idempotency_key: key("usd"),
      }),
    ).toMatchObject({ code: "CURRENCY_MISMATCH", field: "/amount/currency" });
    expect(
      await fails(crm.client, "refund_payment", {
        payment_id: "PAY-1",
        amount: { value_minor: 100, currency: "EUR" },
        idempotency_key: key("nopay"),
      }),
    ).toMatchObject({ code: "NOT_FOUND", field: "/payment_id" });
  });

  it("a retried refund (same key) does not refund twice", async () => {
    const args = {
      payment_id: "PAY-9002",
      amount: { value_minor: 990, currency: "EUR" },
      idempotency_key: key("twice"),
    };
    const [a, b] = await Promise.all([
      call(crm.client, "refund_payment", args),
      call(crm.client, "refund_payment", args),
    ]);
    expect(a.structuredContent).toEqual(b.structuredContent);
    expect((await payment("PAY-9002")).refunded_total.value_minor).toBe(990);
  });
});

describe("send_email", () => {
  it("records the message in the outbox (never sent) and returns the evidence", async () => {
    const k = key("mail");
    const args = {
      to: ["camille.martin@example.com", "support@acme.example"],
      subject: "Votre adresse de livraison",
      body: "Bonjour Camille, votre adresse de livraison a été mise à jour.",
      customer_id: "C-1842",
      idempotency_key: k,
    };
    const r = await ok(crm.client, "send_email", args);
    expect(crm.checkOutput("send_email", r)).toBeNull();
    expect(r.recipients).toEqual(args.to);
    expect(r.message_id).toMatch(/^msg_/);
    await ok(crm.client, "send_email", args); // retry: same message, not a second one
    const s = await state(crm.t.crm.baseUrl);
    expect(s.outbox).toEqual([
      {
        message_id: r.message_id,
        operation_id: r.operation_id,
        customer_id: "C-1842",
        recipients: args.to,
        subject: args.subject,
        body: args.body,
        queued_at: r.queued_at,
      },
    ]);
  });

  it("refuses an unknown customer_id", async () => {
    expect(
      await fails(crm.client, "send_email", {
        to: ["x@example.com"],
        subject: "s",
        body: "b",
        customer_id: "C-4040",
        idempotency_key: key("nomail"),
      }),
    ).toMatchObject({ code: "NOT_FOUND", field: "/customer_id" });
    expect((await state(crm.t.crm.baseUrl)).outbox).toEqual([]);
  });
});

describe("suspend_invoice_delivery", () => {
  const ids = Array.from({ length: 12 }, (_, i) => `INV-1842-${String(i + 1).padStart(3, "0")}`);

  it("suspends many invoices in one operation", async () => {
    await ok(crm.client, "suspend_invoice_delivery", {
      customer_id: "C-1842",
      invoice_ids: ids.slice(0, 2),
      idempotency_key: key("first"),
    });
    const r = await ok(crm.client, "suspend_invoice_delivery", {
      customer_id: "C-1842",
      invoice_ids: [...ids].reverse(),
      idempotency_key: key("bulk"),
    });
    expect(crm.checkOutput("suspend_invoice_delivery", r)).toBeNull();
    expect(r).toMatchObject({
      customer_id: "C-1842",
      suspended_count: 10,
      already_suspended: ids.slice(0, 2),
      invoice_ids: ids,
    });
    const inv = (await state(crm.t.crm.baseUrl)).invoices.filter((i: any) => i.customer_id === "C-1842");
    expect(inv.every((i: any) => i.delivery_suspended)).toBe(true);
    expect(inv.filter((i: any) => i.suspended_by_operation === r.operation_id)).toHaveLength(10);
  });

  it("changes nothing when one invoice is not the customer's", async () => {
    const err = await fails(crm.client, "suspend_invoice_delivery", {
      customer_id: "C-1842",
      invoice_ids: ["INV-1842-001", "INV-2001-001"],
      idempotency_key: key("foreign"),
    });
    expect(err).toMatchObject({ code: "NOT_FOUND", field: "/invoice_ids/1" });
    expect((await state(crm.t.crm.baseUrl)).invoices.some((i: any) => i.delivery_suspended)).toBe(false);
  });

  it("records the civil date delivery resumes on, as a day", async () => {
    const r = await ok(crm.client, "suspend_invoice_delivery", {
      customer_id: "C-1842",
      invoice_ids: ids.slice(0, 1),
      resume_on: "2096-02-29",
      idempotency_key: key("resume"),
    });
    expect(crm.checkOutput("suspend_invoice_delivery", r)).toBeNull();
    expect(r.resume_on).toBe("2096-02-29");
    const inv = (await state(crm.t.crm.baseUrl)).invoices.find((i: any) => i.invoice_id === ids[0]);
    expect(inv).toMatchObject({ delivery_suspended: true, resumes_on: "2096-02-29" });
  });

  it.each([
    ["an impossible day", "2026-02-30"],
    ["a 29 February outside a leap year", "2027-02-29"],
    ["a timestamp instead of a day", "2096-03-01T00:00:00Z"],
    ["a day already past", "2020-01-01"],
  ])("refuses %s with INVALID_ARGUMENTS at /resume_on and suspends nothing", async (_label, day) => {
    const err = await fails(crm.client, "suspend_invoice_delivery", {
      customer_id: "C-1842",
      invoice_ids: ids.slice(0, 2),
      resume_on: day,
      idempotency_key: key("bad-resume"),
    });
    expect(err).toMatchObject({ code: "INVALID_ARGUMENTS", field: "/resume_on" });
    expect((await state(crm.t.crm.baseUrl)).invoices.some((i: any) => i.delivery_suspended)).toBe(false);
  });
});
