import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { describe, expect, it } from "vitest";
import { errorOf, key, setUpTestCrm } from "./test-helpers";
import { TOOL_NAMES } from "./tools";

// What a customer's code does with the official SDK: listTools() (which makes the
// client check every later result against the tool's outputSchema), then
// Client.callTool. Every tool must give a usable result on success AND on a typed
// error: an error result whose structuredContent broke the outputSchema made the
// SDK throw -32602 and lose the code.

const crm = setUpTestCrm();

const commit = (expected_version: number, idempotency_key = key("sdk-commit")) => ({
  customer_id: "C-1842",
  destination: { kind: "saved", address_id: "ADDR-2" },
  expected_version,
  idempotency_key,
});

interface Case {
  /** The arguments of a successful call, or how to get them (a job must exist before it is read or cancelled). */
  success: Record<string, unknown> | (() => Promise<Record<string, unknown>>);
  error: Record<string, unknown>;
  code: string;
  field?: string;
}

const cases: Record<string, Case> = {
  get_customer: {
    success: { customer_id: "C-1842" },
    error: { customer_id: "C-9999" },
    code: "NOT_FOUND",
    field: "/customer_id",
  },
  list_orders: {
    success: { customer_id: "C-1842", limit: 5 },
    error: { customer_id: "C-1842", cursor: "not-a-cursor" },
    code: "INVALID_ARGUMENTS",
    field: "/cursor",
  },
  preview_address_change: {
    success: { customer_id: "C-1842", destination: { kind: "saved", address_id: "ADDR-2" } },
    error: { customer_id: "C-1842", destination: { kind: "saved", address_id: "ADDR-4" } },
    code: "NOT_FOUND",
    field: "/destination/address_id",
  },
  commit_address_change: {
    success: commit(17),
    error: commit(3),
    code: "VERSION_CONFLICT",
    field: "/expected_version",
  },
  get_operation_status: {
    success: { idempotency_key: key("sdk-unknown") },
    error: { idempotency_key: "short" },
    code: "INVALID_ARGUMENTS",
    field: "/idempotency_key",
  },
  send_email: {
    success: {
      to: ["camille.martin@example.com"],
      subject: "Votre commande",
      body: "Bonjour",
      idempotency_key: key("sdk-mail"),
    },
    error: { to: ["not-an-address"], subject: "Votre commande", body: "Bonjour", idempotency_key: key("sdk-mail") },
    code: "INVALID_ARGUMENTS",
    field: "/to/0",
  },
  refund_payment: {
    success: {
      payment_id: "PAY-9002",
      amount: { value_minor: 100, currency: "EUR" },
      idempotency_key: key("sdk-refund"),
    },
    error: {
      payment_id: "PAY-9002",
      amount: { value_minor: 100_000_000, currency: "EUR" },
      idempotency_key: key("sdk-refund"),
    },
    code: "AMOUNT_EXCEEDS_REMAINING",
    field: "/amount/value_minor",
  },
  suspend_invoice_delivery: {
    success: { customer_id: "C-1842", invoice_ids: ["INV-1842-001"], idempotency_key: key("sdk-suspend") },
    error: { customer_id: "C-1842", invoice_ids: ["INV-2001-001"], idempotency_key: key("sdk-suspend") },
    code: "NOT_FOUND",
    field: "/invoice_ids/0",
  },
  suspend_all_invoice_delivery: {
    success: { customer_id: "C-1842", idempotency_key: key("sdk-suspend-all") },
    error: { customer_id: "C-9999", idempotency_key: key("sdk-suspend-all") },
    code: "NOT_FOUND",
    field: "/customer_id",
  },
  get_job_status: {
    success: async () => ({ job_id: await startJob() }),
    error: { job_id: "job_0000000000000000" },
    code: "NOT_FOUND",
    field: "/job_id",
  },
  cancel_job: {
    success: async () => ({ job_id: await startJob(), idempotency_key: key("sdk-cancel") }),
    error: { job_id: "job_0000000000000000", idempotency_key: key("sdk-cancel") },
    code: "NOT_FOUND",
    field: "/job_id",
  },
};

async function startJob(): Promise<string> {
  const result = (await crm.client.callTool({
    name: "suspend_all_invoice_delivery",
    arguments: { customer_id: "C-2001", idempotency_key: key("sdk-job") },
  })) as CallToolResult;
  return (result.structuredContent as { job_id: string }).job_id;
}

describe("the official SDK client's callTool", () => {
  it("covers every tool the server publishes", () => {
    expect(Object.keys(cases).sort()).toEqual([...TOOL_NAMES].sort());
  });

  describe.each(Object.entries(cases))("%s", (name, c) => {
    it("returns the structured result on success", async () => {
      const args = typeof c.success === "function" ? await c.success() : c.success;
      const result = (await crm.client.callTool({ name, arguments: args })) as CallToolResult;
      expect(result.isError ?? false).toBe(false);
      expect(crm.checkOutput(name, result.structuredContent)).toBeNull();
    });

    it(`returns the typed ${c.code} error as a result, not a thrown -32602`, async () => {
      const result = (await crm.client.callTool({ name, arguments: c.error })) as CallToolResult;
      const error = errorOf(result);
      expect(error).toMatchObject({ code: c.code, retryable: false, ...(c.field ? { field: c.field } : {}) });
      expect(typeof error.message).toBe("string");
    });
  });

  it("a recorded refusal replayed with the same key is the same typed error", async () => {
    const args = commit(5);
    const first = errorOf(
      (await crm.client.callTool({ name: "commit_address_change", arguments: args })) as CallToolResult,
    );
    const again = (await crm.client.callTool({ name: "commit_address_change", arguments: args })) as CallToolResult;
    expect(errorOf(again)).toEqual(first);
  });
});
