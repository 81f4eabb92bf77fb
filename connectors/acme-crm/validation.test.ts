import { describe, expect, it } from "vitest";
import { fails, ok, setUpTestCrm, state } from "./test-helpers";
import { assertCivilDateAfter, isCivilDate } from "./validate";

// The server is the authority: it refuses bad input even when the client did
// not validate (the SDK client sends arguments as they are).

// Data is not reset between cases: each one is refused before it could change anything.
const crm = setUpTestCrm({ resetEachTest: false });

const K = "valid-key-0001";
const commit = (over: Record<string, unknown>) => ({
  customer_id: "C-1842",
  destination: { kind: "saved", address_id: "ADDR-2" },
  expected_version: 17,
  idempotency_key: K,
  ...over,
});
const newAddr = (over: Record<string, unknown>) => ({
  customer_id: "C-1842",
  destination: { kind: "new", line1: "1 rue X", city: "Lyon", country: "FR", ...over },
});
const refund = (amount: unknown) => ({ payment_id: "PAY-9001", amount, idempotency_key: K });
const email = (over: Record<string, unknown>) => ({
  to: ["camille.martin@example.com"],
  subject: "Votre commande",
  body: "Bonjour",
  idempotency_key: K,
  ...over,
});
const invoices = (ids: unknown) => ({ customer_id: "C-1842", invoice_ids: ids, idempotency_key: K });

const cases: Array<[string, string, Record<string, unknown>, string]> = [
  ["missing field", "get_customer", {}, "/customer_id"],
  ["extra field", "get_customer", { customer_id: "C-1842", include_notes: true }, "/include_notes"],
  ["wrong type", "get_customer", { customer_id: 1842 }, "/customer_id"],
  ["bad id pattern", "get_customer", { customer_id: "1842" }, "/customer_id"],
  ["limit over 50", "list_orders", { customer_id: "C-1842", limit: 51 }, "/limit"],
  ["limit 0", "list_orders", { customer_id: "C-1842", limit: 0 }, "/limit"],
  ["limit not an integer", "list_orders", { customer_id: "C-1842", limit: 2.5 }, "/limit"],
  ["garbage cursor", "list_orders", { customer_id: "C-1842", cursor: "not-a-cursor" }, "/cursor"],
  ["missing destination", "preview_address_change", { customer_id: "C-1842" }, "/destination"],
  [
    "saved branch with a field of the new branch",
    "preview_address_change",
    { customer_id: "C-1842", destination: { kind: "saved", address_id: "ADDR-2", line1: "1 rue X" } },
    "/destination/line1",
  ],
  [
    "new branch with address_id",
    "preview_address_change",
    newAddr({ address_id: "ADDR-2" }),
    "/destination/address_id",
  ],
  [
    "unknown discriminant",
    "preview_address_change",
    { customer_id: "C-1842", destination: { kind: "pickup_point", address_id: "ADDR-2" } },
    "/destination/kind",
  ],
  [
    "missing discriminant",
    "preview_address_change",
    { customer_id: "C-1842", destination: { address_id: "ADDR-2" } },
    "/destination/kind",
  ],
  [
    "destination not an object",
    "preview_address_change",
    { customer_id: "C-1842", destination: "ADDR-2" },
    "/destination",
  ],
  [
    "new branch missing city",
    "preview_address_change",
    { customer_id: "C-1842", destination: { kind: "new", line1: "1 rue X", country: "FR" } },
    "/destination/city",
  ],
  ["country in lower case", "preview_address_change", newAddr({ country: "fr" }), "/destination/country"],
  ["country alpha-3", "preview_address_change", newAddr({ country: "FRA" }), "/destination/country"],
  ["line1 too long", "preview_address_change", newAddr({ line1: "x".repeat(201) }), "/destination/line1"],
  ["line1 blank", "preview_address_change", newAddr({ line1: "   " }), "/destination/line1"],
  ["city too long", "preview_address_change", newAddr({ city: "y".repeat(101) }), "/destination/city"],
  [
    "postal_code too long",
    "preview_address_change",
    newAddr({ postal_code: "1".repeat(21) }),
    "/destination/postal_code",
  ],
  ["missing expected_version", "commit_address_change", commit({ expected_version: undefined }), "/expected_version"],
  ["expected_version 0", "commit_address_change", commit({ expected_version: 0 }), "/expected_version"],
  ["expected_version as string", "commit_address_change", commit({ expected_version: "17" }), "/expected_version"],
  ["missing idempotency key", "commit_address_change", commit({ idempotency_key: undefined }), "/idempotency_key"],
  ["idempotency key too short", "commit_address_change", commit({ idempotency_key: "abc" }), "/idempotency_key"],
  [
    "idempotency key too long",
    "commit_address_change",
    commit({ idempotency_key: "k".repeat(201) }),
    "/idempotency_key",
  ],
  [
    "idempotency key with spaces",
    "commit_address_change",
    commit({ idempotency_key: "has spaces 123" }),
    "/idempotency_key",
  ],
  ["extra field on commit", "commit_address_change", commit({ proposal_id: "p_7f31" }), "/proposal_id"],
  ["status key too short", "get_operation_status", { idempotency_key: "short" }, "/idempotency_key"],
  ["refund amount 0", "refund_payment", refund({ value_minor: 0, currency: "EUR" }), "/amount/value_minor"],
  ["refund amount fractional", "refund_payment", refund({ value_minor: 12.5, currency: "EUR" }), "/amount/value_minor"],
  [
    "refund amount as string",
    "refund_payment",
    refund({ value_minor: "1000", currency: "EUR" }),
    "/amount/value_minor",
  ],
  ["refund currency lower case", "refund_payment", refund({ value_minor: 100, currency: "eur" }), "/amount/currency"],
  [
    "refund amount extra field",
    "refund_payment",
    refund({ value_minor: 100, currency: "EUR", decimals: 2 }),
    "/amount/decimals",
  ],
  [
    "refund reason too long",
    "refund_payment",
    { ...refund({ value_minor: 100, currency: "EUR" }), reason: "r".repeat(501) },
    "/reason",
  ],
  ["no recipients", "send_email", email({ to: [] }), "/to"],
  ["11 recipients", "send_email", email({ to: Array.from({ length: 11 }, (_, i) => `u${i}@example.com`) }), "/to"],
  ["duplicate recipients", "send_email", email({ to: ["a@example.com", "a@example.com"] }), "/to"],
  ["invalid e-mail", "send_email", email({ to: ["not-an-email"] }), "/to/0"],
  ["subject too long", "send_email", email({ subject: "s".repeat(201) }), "/subject"],
  ["empty body", "send_email", email({ body: "" }), "/body"],
  ["body too long", "send_email", email({ body: "b".repeat(10_001) }), "/body"],
  ["no invoices", "suspend_invoice_delivery", invoices([]), "/invoice_ids"],
  ["duplicate invoices", "suspend_invoice_delivery", invoices(["INV-1842-001", "INV-1842-001"]), "/invoice_ids"],
  [
    "501 invoices",
    "suspend_invoice_delivery",
    invoices(Array.from({ length: 501 }, (_, i) => `INV-1842-${i + 1}`)),
    "/invoice_ids",
  ],
  ["bad invoice id", "suspend_invoice_delivery", invoices(["INV-1842-001", "1842-2"]), "/invoice_ids/1"],
];

describe("server-side input validation", () => {
  const table = cases.map(([label, tool, args, field]) => ({ label, tool, args, field }));
  it.each(table)("$label ($tool) → INVALID_ARGUMENTS at $field", async ({ tool, args, field }) => {
    const clean = JSON.parse(JSON.stringify(args)); // drops the undefined fields
    const err = await fails(crm.client, tool, clean);
    expect(err).toMatchObject({ code: "INVALID_ARGUMENTS", field, retryable: false });
    expect(err.message).toContain(field);
  });

  it("wrote nothing for any of the refused calls", async () => {
    const s = await state(crm.t.crm.baseUrl);
    expect(s.operations).toEqual([]);
    expect(s.outbox).toEqual([]);
    expect(s.customers.find((c: any) => c.customer_id === "C-1842").version).toBe(17);
  });

  it("accepts the boundaries themselves", async () => {
    await ok(crm.client, "list_orders", { customer_id: "C-1842", limit: 1 });
    await ok(crm.client, "list_orders", { customer_id: "C-1842", limit: 50 });
    await ok(
      crm.client,
      "preview_address_change",
      newAddr({ line1: "x".repeat(200), city: "y".repeat(100), postal_code: "1".repeat(20) }),
    );
    await ok(crm.client, "get_operation_status", { idempotency_key: "k".repeat(8) });
    await ok(crm.client, "get_operation_status", { idempotency_key: "k".repeat(200) });
  });
});

describe("the service's own civil date check (whatever the schema validator knows of formats)", () => {
  it("accepts real days only", () => {
    for (const day of ["2026-02-28", "2028-02-29", "2000-02-29", "2026-12-31"])
      expect(isCivilDate(day), day).toBe(true);
    for (const day of [
      "2026-02-30",
      "2027-02-29",
      "1900-02-29",
      "2026-13-01",
      "2026-04-31",
      "2026-1-01",
      "2026-02-28Z",
    ])
      expect(isCivilDate(day), day).toBe(false);
  });

  it("refuses an impossible day or one not after today with INVALID_ARGUMENTS at the field", () => {
    for (const day of ["2026-02-30", "2026-06-01", "2026-05-31"])
      expect(() => assertCivilDateAfter(day, "2026-06-01", "/resume_on"), day).toThrow(
        expect.objectContaining({ code: "INVALID_ARGUMENTS", field: "/resume_on" }),
      );
    expect(() => assertCivilDateAfter("2026-06-02", "2026-06-01", "/resume_on")).not.toThrow();
  });
});
