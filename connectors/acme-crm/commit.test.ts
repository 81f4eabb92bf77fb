import { describe, expect, it } from "vitest";
import { call, control, errorOf, fails, key, ok, setUpTestCrm, state } from "./test-helpers";

const crm = setUpTestCrm();

const LYON = { kind: "saved", address_id: "ADDR-2" };
const commitArgs = (idempotency_key: string, extra: Record<string, unknown> = {}) => ({
  customer_id: "C-1842",
  destination: LYON,
  expected_version: 17,
  idempotency_key,
  ...extra,
});
const customer = async (id = "C-1842") =>
  (await state(crm.t.crm.baseUrl)).customers.find((c: any) => c.customer_id === id);

describe("commit_address_change", () => {
  it("commits the previewed change: 17 → 18 and the stored address changes", async () => {
    const p = await ok(crm.client, "preview_address_change", { customer_id: "C-1842", destination: LYON });
    const k = key("commit");
    const r = await ok(crm.client, "commit_address_change", {
      ...p.arguments,
      expected_version: p.target.version,
      idempotency_key: k,
    });
    expect(crm.checkOutput("commit_address_change", r)).toBeNull();
    expect(r).toMatchObject({
      customer_id: "C-1842",
      previous_version: 17,
      new_version: 18,
      changed_fields: ["shipping_address"],
    });
    expect(r.operation_id).toMatch(/^op_[0-9a-f]+$/);
    const c = await customer();
    expect(c.version).toBe(18);
    expect(c.shipping_address).toEqual(p.changes[0].after);
    const ops = (await state(crm.t.crm.baseUrl)).operations;
    expect(ops).toHaveLength(1);
    expect(ops[0]).toMatchObject({ idempotency_key: k, tool: "commit_address_change", status: "succeeded", result: r });
    expect(ops[0].arguments_sha256).toMatch(/^[0-9a-f]{64}$/);
  });

  it("VERSION_CONFLICT after someone else changed the customer: no business data written", async () => {
    const touched = await control(crm.t.crm.baseUrl, "POST", "/__control/customers/C-1842/touch");
    expect(touched).toEqual({ customer_id: "C-1842", version: 18 });
    const before = await state(crm.t.crm.baseUrl);
    const k = key("conflict");
    const err = await fails(crm.client, "commit_address_change", commitArgs(k));
    expect(err).toMatchObject({
      code: "VERSION_CONFLICT",
      field: "/expected_version",
      retryable: false,
      details: { current_version: 18 },
    });
    const after = await state(crm.t.crm.baseUrl);
    expect(after.customers).toEqual(before.customers);
    // The refusal is recorded as the final outcome of that key (documented choice).
    expect(after.operations).toHaveLength(1);
    expect(after.operations[0]).toMatchObject({ idempotency_key: k, status: "failed", result: null, error: err });
    const status = await ok(crm.client, "get_operation_status", { idempotency_key: k });
    expect(status).toMatchObject({ status: "failed", tool: "commit_address_change", result: null, error: err });
    // Same key + same arguments: the same recorded refusal, still nothing written.
    expect(await fails(crm.client, "commit_address_change", commitArgs(k))).toEqual(err);
    expect((await customer()).version).toBe(18);
  });

  it("same key + same arguments → the stored result, written once", async () => {
    const k = key("replay");
    const first = await call(crm.client, "commit_address_change", commitArgs(k));
    const second = await call(crm.client, "commit_address_change", commitArgs(k));
    expect(second.structuredContent).toEqual(first.structuredContent);
    expect(first._meta?.["com.acme.crm/replayed"]).toBeUndefined();
    expect(second._meta?.["com.acme.crm/replayed"]).toBe(true);
    const s = await state(crm.t.crm.baseUrl);
    expect(s.customers.find((c: any) => c.customer_id === "C-1842").version).toBe(18);
    expect(s.operations).toHaveLength(1);
  });

  it("compares canonical arguments: whitespace and key order do not make a different call", async () => {
    const k = key("canon");
    const a = await ok(crm.client, "commit_address_change", {
      idempotency_key: k,
      expected_version: 17,
      destination: { country: "FR", city: "  Lille ", line1: "1  place Rihour", kind: "new" },
      customer_id: "C-1842",
    });
    const b = await ok(crm.client, "commit_address_change", {
      customer_id: "C-1842",
      destination: { kind: "new", line1: "1 place Rihour", city: "Lille", country: "FR" },
      expected_version: 17,
      idempotency_key: k,
    });
    expect(b).toEqual(a);
    expect((await customer()).shipping_address).toEqual({
      line1: "1 place Rihour",
      city: "Lille",
      postal_code: null,
      country: "FR",
    });
  });

  it("same key + other arguments → IDEMPOTENCY_KEY_REUSED, nothing written", async () => {
    const k = key("reuse");
    await ok(crm.client, "commit_address_change", commitArgs(k));
    const before = await state(crm.t.crm.baseUrl);
    const err = await fails(
      crm.client,
      "commit_address_change",
      commitArgs(k, { destination: { kind: "saved", address_id: "ADDR-3" }, expected_version: 18 }),
    );
    expect(err).toMatchObject({ code: "IDEMPOTENCY_KEY_REUSED", field: "/idempotency_key" });
    // …and with another write tool.
    expect(
      await fails(crm.client, "send_email", { to: ["a@example.com"], subject: "s", body: "b", idempotency_key: k }),
    ).toMatchObject({ code: "IDEMPOTENCY_KEY_REUSED" });
    expect(await state(crm.t.crm.baseUrl)).toEqual(before);
  });

  it("50 concurrent commits with the same key → exactly one version bump, one stored result", async () => {
    const k = key("race");
    const results = await Promise.all(
      Array.from({ length: 50 }, () => call(crm.client, "commit_address_change", commitArgs(k))),
    );
    expect(results.every((r) => !r.isError)).toBe(true);
    const ids = new Set(results.map((r) => (r.structuredContent as any).operation_id));
    expect(ids.size).toBe(1);
    expect(results.filter((r) => r._meta?.["com.acme.crm/replayed"] !== true)).toHaveLength(1);
    const s = await state(crm.t.crm.baseUrl);
    expect(s.customers.find((c: any) => c.customer_id === "C-1842").version).toBe(18);
    expect(s.operations).toHaveLength(1);
  });

  it("50 concurrent commits with different keys against version 17 → one winner, 49 VERSION_CONFLICT", async () => {
    const results = await Promise.all(
      Array.from({ length: 50 }, (_, i) => call(crm.client, "commit_address_change", commitArgs(key(`race${i}`)))),
    );
    const codes = results.map((r) => (r.isError ? errorOf(r).code : "OK"));
    expect(codes.filter((c) => c === "OK")).toHaveLength(1);
    expect(codes.filter((c) => c === "VERSION_CONFLICT")).toHaveLength(49);
    expect((await customer()).version).toBe(18);
  });
});

describe("get_operation_status", () => {
  it("reports succeeded with the stored result, and not_found for an unknown key", async () => {
    const k = key("status");
    const r = await ok(crm.client, "commit_address_change", commitArgs(k));
    const s = await ok(crm.client, "get_operation_status", { idempotency_key: k });
    expect(crm.checkOutput("get_operation_status", s)).toBeNull();
    expect(s).toMatchObject({
      idempotency_key: k,
      status: "succeeded",
      tool: "commit_address_change",
      operation_id: r.operation_id,
      result: r,
      error: null,
    });
    const none = await ok(crm.client, "get_operation_status", { idempotency_key: key("never-used") });
    expect(crm.checkOutput("get_operation_status", none)).toBeNull();
    expect(none).toMatchObject({ status: "not_found", tool: null, result: null, error: null, operation_id: null });
  });
});
