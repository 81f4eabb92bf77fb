import { describe, expect, it } from "vitest";
import { contractCases, type ContractCase, type JsonSchema } from "./contract-cases";
import { call, errorOf, setUpTestCrm } from "./test-helpers";
import { listTools } from "./tools";

// Contract tests generated from each tool's published input schema and one
// valid example per union branch: the server must refuse every case outside
// the contract with INVALID_ARGUMENTS at the exact field, and accept the bounds
// themselves. The cases are built from the catalog the server publishes; the
// first test proves it is exactly what a client reads from tools/list.

const examples: Record<string, Record<string, unknown>[]> = {
  get_customer: [{ customer_id: "C-1842" }],
  list_orders: [{ customer_id: "C-1842", limit: 10 }],
  preview_address_change: [
    { customer_id: "C-1842", destination: { kind: "saved", address_id: "ADDR-2" } },
    {
      customer_id: "C-1842",
      destination: { kind: "new", line1: "1 rue X", city: "Lyon", postal_code: "69001", country: "FR" },
    },
  ],
  commit_address_change: [
    {
      customer_id: "C-1842",
      destination: { kind: "saved", address_id: "ADDR-2" },
      expected_version: 17,
      idempotency_key: "contract-commit-0001",
    },
    {
      customer_id: "C-1842",
      destination: { kind: "new", line1: "1 rue X", city: "Lyon", postal_code: "69001", country: "FR" },
      expected_version: 17,
      idempotency_key: "contract-commit-0002",
    },
  ],
  get_operation_status: [{ idempotency_key: "contract-commit-0001" }],
  send_email: [
    {
      to: ["camille.martin@example.com"],
      subject: "Votre commande",
      body: "Bonjour",
      customer_id: "C-1842",
      idempotency_key: "contract-mail-0001",
    },
  ],
  refund_payment: [
    {
      payment_id: "PAY-9001",
      amount: { value_minor: 100, currency: "EUR" },
      reason: "Geste commercial",
      idempotency_key: "contract-refund-0001",
    },
  ],
  suspend_invoice_delivery: [
    { customer_id: "C-1842", invoice_ids: ["INV-1842-001"], idempotency_key: "contract-suspend-0001" },
    {
      customer_id: "C-1842",
      invoice_ids: ["INV-1842-002"],
      resume_on: "2096-03-01",
      idempotency_key: "contract-suspend-0002",
    },
  ],
  suspend_all_invoice_delivery: [{ customer_id: "C-1842", idempotency_key: "contract-suspend-all-0001" }],
  get_job_status: [{ job_id: "job_0123456789abcdef" }],
  cancel_job: [{ job_id: "job_0123456789abcdef", idempotency_key: "contract-cancel-0001" }],
};

const published = listTools(1);
const schemas = new Map(published.map((tool) => [tool.name, tool.inputSchema as JsonSchema]));

// Data is not reset between cases: each one is refused before it could change anything.
const crm = setUpTestCrm({ resetEachTest: false });

function casesOf(tool: string): ContractCase[] {
  return examples[tool].flatMap((example) => contractCases(schemas.get(tool)!, example));
}

describe("the generated contract cases", () => {
  it("are built from exactly the schemas a client reads over MCP, for every tool", async () => {
    const listed = (await crm.client.listTools()).tools.map((tool) => [tool.name, tool.inputSchema]);
    expect(listed).toEqual(published.map((tool) => [tool.name, tool.inputSchema]));
    expect([...schemas.keys()].sort()).toEqual(Object.keys(examples).sort());
  });

  it("include each kind of case where the schema calls for it", () => {
    const labels = (tool: string) =>
      casesOf(tool)
        .map((c) => c.label)
        .join("\n");
    expect(labels("commit_address_change")).toMatch(/\/destination: unknown discriminant/);
    expect(labels("commit_address_change")).toMatch(/\/destination: missing discriminant/);
    expect(labels("commit_address_change")).toMatch(/\/destination: branch mixed with the other branch's line1/);
    expect(labels("commit_address_change")).toMatch(/\/destination: branch mixed with the other branch's address_id/);
    expect(labels("commit_address_change")).toMatch(/\/expected_version: minimum - 1/);
    expect(labels("commit_address_change")).toMatch(/\/destination\/country: outside pattern/);
    expect(labels("commit_address_change")).toMatch(/\/destination\/line1: 201 characters/);
    expect(labels("commit_address_change")).toMatch(/\/destination\/line1: exactly maxLength 200/);
    expect(labels("commit_address_change")).toMatch(/\/idempotency_key: 7 characters/);
    expect(labels("refund_payment")).toMatch(/\/amount\/value_minor: not an integer/);
    expect(labels("refund_payment")).toMatch(/\/amount\/value_minor: maximum \+ 1/);
    expect(labels("send_email")).toMatch(/\/to: 11 items/);
    expect(labels("send_email")).toMatch(/\/to\/0: not an e-mail address/);
    expect(labels("list_orders")).toMatch(/\/limit: exactly maximum 50/);
    expect(labels("suspend_invoice_delivery")).toMatch(/\/resume_on: impossible calendar date 2026-02-30/);
    expect(labels("suspend_invoice_delivery")).toMatch(/\/resume_on: real calendar date 2096-02-29/);
    for (const tool of Object.keys(examples)) {
      expect(labels(tool), tool).toMatch(/missing/);
      expect(labels(tool), tool).toMatch(/wrong type/);
      expect(labels(tool), tool).toMatch(/undeclared field/);
    }
  });
});

describe.each(Object.keys(examples))("%s", (tool) => {
  it.each(casesOf(tool).map((c) => ({ ...c, name: c.label })))("$name → $expect", async (c) => {
    const result = await call(crm.client, tool, JSON.parse(JSON.stringify(c.args)));
    const error: { code: string; field?: string } | null = result.isError ? errorOf(result) : null;
    if (c.expect === "invalid") expect(error).toMatchObject({ code: "INVALID_ARGUMENTS", field: c.pointer });
    else expect(error?.code ?? "success").not.toBe("INVALID_ARGUMENTS");
  });
});
